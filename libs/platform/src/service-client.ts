import {
  DomainError,
  type Contract,
  type MessageMeta,
  type ReplyOf,
  type RequestOf,
} from '@townhall/contracts';
import type { z } from 'zod';
import { serviceRequestDuration } from './observability/metrics.js';

/**
 * How the gateway (and one service asking another) sends a request to the service that
 * owns a contract. NATS in distributed mode, a direct call in standalone mode; callers
 * cannot tell. Failures surface as DomainError: the remote code, or
 * `service.unavailable` (nobody listens) and `service.timeout` (nobody answered).
 */
export interface ServiceClient {
  send<C extends Contract<z.ZodType, unknown>>(
    contract: C,
    data: RequestOf<C>,
    meta: MessageMeta,
  ): Promise<ReplyOf<C>>;
  close(): Promise<void>;
}

export const SERVICE_CLIENT = Symbol('ServiceClient');

/**
 * The one place a request to a service is measured, whatever carries it: subclasses (NATS,
 * in-process) implement `request`; `send` observes its latency by pattern and outcome (`ok`, the
 * transport's `service.unavailable` or `service.timeout`, or `error` for the service's own answer).
 */
export abstract class MeasuredServiceClient implements ServiceClient {
  async send<C extends Contract<z.ZodType, unknown>>(
    contract: C,
    data: RequestOf<C>,
    meta: MessageMeta,
  ): Promise<ReplyOf<C>> {
    const end = serviceRequestDuration.startTimer({ pattern: contract.pattern });
    try {
      const reply = await this.request(contract, data, meta);
      end({ outcome: 'ok' });
      return reply;
    } catch (error) {
      end({ outcome: outcomeOf(error) });
      throw error;
    }
  }

  protected abstract request<C extends Contract<z.ZodType, unknown>>(
    contract: C,
    data: RequestOf<C>,
    meta: MessageMeta,
  ): Promise<ReplyOf<C>>;

  abstract close(): Promise<void>;
}

function outcomeOf(error: unknown): string {
  const code = error instanceof DomainError ? error.code : undefined;
  return code === 'service.unavailable' || code === 'service.timeout' ? code : 'error';
}
