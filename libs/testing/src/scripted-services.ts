import type { Contract, DomainError, MessageMeta } from '@townhall/contracts';
import type { ServiceClient } from '@townhall/platform';
import type { z } from 'zod';

/** One request a ScriptedServices received. */
export interface AskedOfServices {
  pattern: string;
  data: unknown;
  meta: MessageMeta;
}

/**
 * Stands in for the services (not for NATS) in the gateway's unit tests: records every request
 * with its meta, and answers through `answer` (by the contract's pattern), or throws `failWith`
 * while it is set, as a service's DomainError would come back.
 */
export class ScriptedServices implements ServiceClient {
  readonly asked: AskedOfServices[] = [];
  failWith: DomainError | undefined;

  constructor(private readonly answer: (asked: AskedOfServices) => unknown) {}

  async send<C extends Contract<z.ZodType, unknown>>(
    contract: C,
    data: unknown,
    meta: MessageMeta,
  ): Promise<never> {
    const asked = { pattern: contract.pattern, data, meta };
    this.asked.push(asked);
    if (this.failWith) throw this.failWith;
    return (await this.answer(asked)) as never;
  }

  async close(): Promise<void> {}
}
