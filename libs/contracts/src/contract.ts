import { z } from 'zod';
import { busSchema } from './bus-schemas.js';
import { DomainError } from './domain-error.js';

/**
 * Everything a message carries besides its data: who asked (the agentId the gateway
 * verified, or null for a public read) and the request id that ties log lines together.
 */
export interface MessageMeta {
  requestId: string;
  caller: string | null;
}

/** MessageMeta on the bus (the AsyncAPI document); bus-schemas.spec.ts checks it is the same type. */
export const MessageMetaSchema = busSchema(
  z.object({
    requestId: z.string().describe('Ties the log lines of one HTTP request together (`x-request-id`)'),
    caller: z.string().nullable().describe('The agentId the gateway verified; null for a public read'),
  }),
  'MessageMeta',
  'Who asked and which request this is: the `meta` of every request',
);

/** The meta of a request the gateway verified: the caller is known. */
export type SignedMeta = MessageMeta & { caller: string };

/** Every change needs a signed request; services trust the gateway's `meta.caller`. */
export function signedMeta(meta: MessageMeta): SignedMeta {
  if (!meta.caller) throw new DomainError('auth.malformed', 'This action needs a signed request');
  return { ...meta, caller: meta.caller };
}

export interface Envelope<T> {
  meta: MessageMeta;
  data: T;
}

/**
 * One request/reply message between the gateway and a service. Both sides import the
 * same object, so renaming a pattern or changing a shape is a compile error on both.
 */
export interface Contract<Schema extends z.ZodType, Reply> {
  readonly pattern: string;
  readonly request: Schema;
  /** Phantom: carries the reply type only. */
  readonly reply?: Reply;
}

export type RequestOf<C> = C extends Contract<infer S, unknown> ? z.input<S> : never;
export type ParsedRequestOf<C> = C extends Contract<infer S, unknown> ? z.output<S> : never;
export type ReplyOf<C> = C extends Contract<z.ZodType, infer R> ? R : never;

export function contract<Reply>() {
  return <Schema extends z.ZodType>(pattern: string, request: Schema): Contract<Schema, Reply> => ({
    pattern,
    request,
  });
}
