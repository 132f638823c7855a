import { DomainError } from '@townhall/contracts';
import { counter } from '@townhall/platform';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { sendProblem, toDomainError } from '../problem/problem.js';
import { IDEMPOTENT_METHODS, idempotencyKeyOf, isKeptStatus, requestFingerprint } from './idempotency-key.js';
import {
  IDEMPOTENCY_KEEP_MS,
  type HeldKey,
  type IdempotencyStore,
  type StoredResponse,
} from './idempotency-store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this request claimed, until its answer is kept or the key given back. */
    idempotencyKey?: HeldKey;
  }
}

export interface IdempotencyOptions {
  store: IdempotencyStore;
  /** How long a claim outlives a request that never finishes (idempotency-store.ts inFlightMsOf). */
  inFlightMs: number;
  /** How long an answer is replayed (IDEMPOTENCY_KEEP_MS). */
  keepMs?: number;
  /** Answers with a larger body are not kept (the key is given back). */
  maxBodyBytes?: number;
  /** The store's cap of keys per agent, for the refusal's detail (IDEMPOTENCY_KEYS_PER_AGENT). */
  keysPerAgent?: number;
}

/** Responses are small JSON; a body over 1 MiB is not kept, and its key is given back. */
export const MAX_KEPT_BODY_BYTES = 1024 * 1024;

/**
 * Headers about this attempt, not about the operation's answer: never kept, so a replay carries
 * its own (its request id, the agent's current rate-limit budget) and the framing Node computes.
 */
const ATTEMPT_HEADERS: ReadonlySet<string> = new Set([
  'x-request-id',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
  'retry-after',
  'idempotent-replayed',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'date',
]);

export const REPLAYED_HEADER = 'idempotent-replayed';

const idempotentRequests = counter(
  'townhall_idempotent_requests_total',
  'Signed writes with an Idempotency-Key, by outcome: claimed (ran), replayed, in_flight (409), mismatch (422), too_many_keys (429), store_full (503)',
  ['outcome'],
);

/**
 * Idempotency-Key on signed POST, PUT, PATCH and DELETE (docs/protocol/idempotency.md), as hooks
 * that run after the signed-request guard (installed after it):
 * - preHandler, once the signature verified, the nonce was claimed and the body parsed: the key
 *   (400 `idempotency.key_invalid`) is claimed for the verified caller in the store, atomically
 *   across replicas. A held key is 409 `idempotency.in_flight` (Retry-After: 1), a key used for
 *   another request (method, path, query, body digest) 422 `idempotency.key_mismatch`, a finished
 *   one is answered from the store (`Idempotent-Replayed: true`) and no handler runs; an agent
 *   holding its cap of keys is 429 `idempotency.too_many_keys` (Retry-After: until one expires);
 * - onSend (installed last, so it sees the answer as sent): the answer is kept for 24 h when it
 *   is a 2xx (idempotency-key.ts isKeptStatus), else the key is given back;
 * - onResponse: a claim still held (the answer never reached onSend) is given back.
 * Requests without the header, unsigned requests and GET/HEAD are untouched.
 */
export function installIdempotentRequests(
  fastify: FastifyInstance,
  options: IdempotencyOptions,
  audience: string,
): void {
  const { store, inFlightMs } = options;
  const keepMs = options.keepMs ?? IDEMPOTENCY_KEEP_MS;
  const maxBodyBytes = options.maxBodyBytes ?? MAX_KEPT_BODY_BYTES;

  fastify.addHook('preHandler', async (request, reply) => {
    const agentId = request.caller;
    if (agentId === undefined || !IDEMPOTENT_METHODS.has(request.method)) return;
    try {
      const key = idempotencyKeyOf(request.raw.headersDistinct['idempotency-key']);
      if (key === undefined) return;
      const fingerprint = requestFingerprint(request.method, request.raw.url ?? '', request.rawBody ?? EMPTY);
      let begun;
      try {
        begun = await store.begin(agentId, key, fingerprint, inFlightMs);
      } catch (error) {
        request.log.error({ err: error }, 'idempotency store unavailable');
        throw new DomainError(
          'dependency.unavailable',
          'The idempotency store is unavailable; retry shortly',
        );
      }
      switch (begun.outcome) {
        case 'claimed':
          idempotentRequests.inc({ outcome: 'claimed' });
          request.idempotencyKey = begun.held;
          return;
        case 'replay':
          idempotentRequests.inc({ outcome: 'replayed' });
          return replay(reply, begun.response);
        case 'in_flight':
          idempotentRequests.inc({ outcome: 'in_flight' });
          void reply.header('retry-after', '1');
          throw new DomainError(
            'idempotency.in_flight',
            'The first request with this Idempotency-Key is still running; retry after Retry-After',
          );
        case 'mismatch':
          idempotentRequests.inc({ outcome: 'mismatch' });
          throw new DomainError(
            'idempotency.key_mismatch',
            'This Idempotency-Key was used for another request (method, path, query or body); use a new key',
          );
        case 'too_many_keys':
          // Refused, not run without the key: a client that sent one counts on a retry not running twice.
          idempotentRequests.inc({ outcome: 'too_many_keys' });
          throw new DomainError(
            'idempotency.too_many_keys',
            `This agent holds ${options.keysPerAgent ?? 'its'} Idempotency-Keys of the last 24 hours (IDEMPOTENCY_KEYS_PER_AGENT); send this write without a key, or with one after Retry-After`,
            undefined,
            { retryAfterSeconds: Math.max(1, Math.ceil(begun.retryAfterMs / 1_000)) },
          );
        case 'store_full':
          idempotentRequests.inc({ outcome: 'store_full' });
          throw new DomainError(
            'service.overloaded',
            'This server holds as many Idempotency-Keys as it may; retry shortly, or send this write without a key',
          );
      }
    } catch (error) {
      const known = toDomainError(error);
      if (!known) throw error;
      return sendProblem(request, reply, known, audience);
    }
  });

  fastify.addHook('onSend', async (request, reply, payload) => {
    const held = request.idempotencyKey;
    if (!held) return payload;
    request.idempotencyKey = undefined;
    const body = bytesOf(payload);
    try {
      if (!isKeptStatus(reply.statusCode) || body === undefined || body.length > maxBodyBytes) {
        await store.release(held);
      } else {
        // Kept before the answer leaves: a client that has it and retries at once gets the replay.
        const kept = await store.complete(held, answerOf(reply, body), keepMs);
        if (!kept)
          request.log.warn(
            'idempotency key expired while its request ran, or its answer does not fit the store: it is not kept',
          );
      }
    } catch (error) {
      // The answer still goes out; the marker expires after inFlightMs and the key is free again.
      request.log.error({ err: error }, 'idempotency store unavailable: the answer is not kept');
    }
    return payload;
  });

  fastify.addHook('onResponse', async (request) => {
    const held = request.idempotencyKey;
    if (!held) return;
    request.idempotencyKey = undefined;
    await store.release(held).catch((error: unknown) => {
      request.log.error(
        { err: error },
        'idempotency store unavailable: the key is given back when it expires',
      );
    });
  });
}

const EMPTY = Buffer.alloc(0);

function replay(reply: FastifyReply, response: StoredResponse): FastifyReply {
  void reply.code(response.status);
  for (const [name, value] of Object.entries(response.headers)) void reply.header(name, value);
  void reply.header(REPLAYED_HEADER, 'true');
  return reply.send(Buffer.from(response.body, 'base64'));
}

/** The answer as onSend sees it: what the handler wrote, serialised, with its headers. */
function answerOf(reply: FastifyReply, body: Buffer): StoredResponse {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value === undefined || ATTEMPT_HEADERS.has(name.toLowerCase())) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return { status: reply.statusCode, headers, body: body.toString('base64') };
}

/** The payload's bytes; undefined for a stream (never kept: no signed write answers with one). */
function bytesOf(payload: unknown): Buffer | undefined {
  if (payload === null || payload === undefined) return EMPTY;
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (Buffer.isBuffer(payload)) return payload;
  return undefined;
}
