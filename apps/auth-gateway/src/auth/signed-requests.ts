import { AuthError, type SignatureVerifier, type PendingRequest } from '@townhall/auth';
import { DomainError } from '@townhall/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { buildProblem, PROBLEM_CONTENT_TYPE, sendProblem, toDomainError } from '../problem/problem.js';
import { addressRefusals, signatureVerifications } from '../http-metrics.js';
import { assertTextFields, parseJsonBody } from '../input/input-policy.js';
import type { AddressLimits, AddressRefusal } from '../rate-limit/address-limits.js';
import { clientAddressKey } from '../rate-limit/client-address.js';
import type { InstalledRateLimits } from '../rate-limit/rate-limited-requests.js';
import type { Claim, NonceStore } from './nonce-store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body bytes exactly as received: what the signature covers. */
    rawBody?: Buffer;
    /** Set after phase one of verification on a signed route. */
    pendingAuth?: PendingRequest;
    /** The verified agentId of a signed request. */
    caller?: string;
  }
}

export interface SignedRequestOptions {
  verifier: SignatureVerifier;
  nonces: NonceStore;
  audience: string;
  bodyLimit: number;
  now?: () => number;
  /**
   * The agent's rate limits: their windows are counted with the nonce claim (one round trip to
   * the store), and they answer (headers, or a 429 that ends the request) before the body is
   * parsed or anything is forwarded.
   */
  rateLimits?: InstalledRateLimits | undefined;
  /**
   * What a client address may spend on signed requests before anything is verified: its bucket,
   * and the block its failed verifications earn it (rate-limit/address-limits.ts).
   */
  addressLimits?: AddressLimits | undefined;
}

const EMPTY = Buffer.alloc(0);

/**
 * A public read that takes a signature (`acceptsSignature` routes) and was sent with one: it is
 * verified exactly as on a signed route, and a signature that does not verify is refused.
 */
export function carriesAcceptedSignature(request: FastifyRequest): boolean {
  return request.routeOptions.config.acceptsSignature === true && request.headers.authorization !== undefined;
}

/**
 * The auth guard, as two Fastify hooks so that the checks run in the order of
 * docs/protocol/signing.md "Verification order":
 * headers, timestamp and agentId before the body is read (onRequest); then the body
 * (capped), the signature and the nonce claim (preHandler). Only a request whose
 * signature verified may claim a nonce, so a forged request never burns one. The
 * handler then sees exactly the body bytes that were signed, parsed as JSON under the input
 * policy (input/input-policy.ts), which also checks every route's path and query.
 */
export function installSignedRequests(fastify: FastifyInstance, options: SignedRequestOptions): void {
  const { verifier, nonces, audience, rateLimits } = options;
  const addressLimits = options.addressLimits?.enabled ? options.addressLimits : undefined;
  const now = options.now ?? Date.now;

  // Keep every body as raw bytes; JSON is parsed only after the signature is checked.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: options.bodyLimit },
    (_request, body, done) => done(null, body),
  );

  fastify.addHook('onRequest', async (request, reply) => {
    if (!request.routeOptions.config.signed && !carriesAcceptedSignature(request)) return;
    // The address pays first: its bucket and its block are looked at before the headers are, and
    // a refused request's body is never read.
    if (addressLimits) {
      const refusal = await addressLimits.admit(clientAddressKey(request.ip));
      if (refusal) return refuseAddress(request, reply, refusal);
    }
    try {
      request.pendingAuth = verifier.precheck({
        authorization: request.raw.headersDistinct['authorization'],
        // headersDistinct keeps every value: Node's `headers` silently drops a second Authorization.
        nonce: request.raw.headersDistinct['x-nonce'],
        method: request.method,
        rawUrl: request.raw.url ?? '',
        nowMs: now(),
      });
    } catch (error) {
      return fail(request, reply, error);
    }
  });

  fastify.addHook('preHandler', async (request, reply) => {
    const raw = Buffer.isBuffer(request.body) ? request.body : EMPTY;
    request.rawBody = raw;
    const pending = request.pendingAuth;
    if (pending) {
      try {
        let verified;
        try {
          verified = verifier.verify(pending, raw, audience);
        } finally {
          signatureVerifications.inc({ outcome: verified ? 'verified' : 'refused' });
        }
        let claim: Claim;
        try {
          const windows = rateLimits?.windowsOf(request, verified.agentId);
          claim = await nonces.claim(verified.agentId, verified.nonce, windows);
        } catch (error) {
          // A refusal of the store's own (standalone's memory is full: 503 service.overloaded).
          if (error instanceof DomainError) throw error;
          request.log.error({ err: error }, 'nonce store unavailable');
          throw new DomainError('dependency.unavailable', 'The nonce store is unavailable; retry shortly');
        }
        if (!claim.claimed)
          throw new AuthError('auth.nonce_replayed', 'This nonce was already used by this agent');
        request.caller = verified.agentId;
        if (rateLimits?.answer(request, reply, claim.counts)) return reply;
      } catch (error) {
        return fail(request, reply, error);
      }
    }
    try {
      assertTextFields(request.params);
      assertTextFields(request.query);
      request.body = parseJsonBody(raw, request.headers['content-type']);
    } catch (error) {
      return fail(request, reply, error);
    }
  });

  // A read that may be signed answers differently when it is: shared caches must key on the
  // signature, and never keep a signed reply.
  fastify.addHook('onSend', async (request, reply, payload) => {
    if (request.routeOptions.config.acceptsSignature) {
      void reply.header('vary', 'Authorization');
      if (request.caller !== undefined) void reply.header('cache-control', 'private, no-store');
    }
    return payload;
  });

  async function fail(request: FastifyRequest, reply: FastifyReply, error: unknown): Promise<FastifyReply> {
    const known = toDomainError(error);
    if (!known) throw error;
    // Not authentic (forged, malformed, stale, replayed): counted against the address.
    if (addressLimits && error instanceof AuthError) await addressLimits.failed(clientAddressKey(request.ip));
    return sendProblem(request, reply, known, audience);
  }

  function refuseAddress(
    request: FastifyRequest,
    reply: FastifyReply,
    refusal: AddressRefusal,
  ): FastifyReply {
    addressRefusals.inc({ reason: refusal.reason });
    const error =
      refusal.reason === 'rate'
        ? new DomainError(
            'rate.limited',
            `Too many signed requests from this address (RateLimit-Policy ${refusal.limit};w=1); retry after ${refusal.retryAfterSeconds} s`,
          )
        : new DomainError(
            'auth.address_blocked',
            `More than ${refusal.failures} signed requests from this address failed verification within ${refusal.windowSeconds} s; signed requests from it are refused for ${refusal.retryAfterSeconds} s more`,
          );
    const problem = buildProblem(error, request.id, audience);
    void reply.header('retry-after', String(refusal.retryAfterSeconds));
    if (refusal.reason === 'rate') void reply.header('ratelimit-policy', `${refusal.limit};w=1`);
    return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
  }
}
