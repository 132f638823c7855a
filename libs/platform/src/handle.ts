import { MessagePattern } from '@nestjs/microservices';
import { parseOrThrow, type Contract, type Envelope, type MessageMeta } from '@townhall/contracts';
import type { z } from 'zod';

type Handler<S extends z.ZodType, R> = (data: z.output<S>, meta: MessageMeta) => Promise<R>;

/**
 * Marks a method as the handler of one contract. The envelope's data is validated by
 * the contract's schema before the method runs, so a handler only ever sees a command
 * that passed validation, whichever transport delivered it.
 */
export function Handle<S extends z.ZodType, R>(contract: Contract<S, R>) {
  return <T extends Handler<S, R>>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<T>,
  ): void => {
    const original = descriptor.value;
    if (!original) throw new Error(`@Handle(${contract.pattern}) must decorate a method`);
    descriptor.value = async function (this: unknown, envelope: Envelope<unknown>): Promise<R> {
      const data = parseOrThrow(contract.request, envelope.data);
      return original.call(this, data, envelope.meta);
    } as unknown as T;
    MessagePattern(contract.pattern)(target, key, descriptor);
  };
}
