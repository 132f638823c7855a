import { AuthError, type SignatureVerifier, type PendingRequest } from '@townhall/auth';
import { DomainError } from '@townhall/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem, toDomainError } from '../problem/problem.js';
import { assertTextFields, parseJsonBody } from '../input/input-policy.js';
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
        const verified = verifier.verify(pending, raw, audience);
        let claim: Claim;
        try {
          const windows = rateLimits?.windowsOf(request, verified.agentId);
          claim = await nonces.claim(verified.agentId, verified.nonce, windows);
        } catch (error) {
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

  function fail(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
    const known = toDomainError(error);
    if (!known) throw error;
    return sendProblem(request, reply, known, audience);
  }
}
