import {
  AuthError,
  acceptSignatureValue,
  agentIdFromPublicKey,
  SIGNATURE_AGENT_HEADER,
  type PendingMessageSignature,
  type PendingRequest,
  type SignatureVerifier,
  type VerifiedRequest,
} from '@townhall/auth';
import { DomainError } from '@townhall/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { buildProblem, PROBLEM_CONTENT_TYPE, sendProblem, toDomainError } from '../problem/problem.js';
import { addressRefusals, signatureVerifications } from '../http-metrics.js';
import { assertTextFields, parseJsonBody } from '../input/input-policy.js';
import type { AddressLimits, AddressRefusal } from '../rate-limit/address-limits.js';
import { clientAddressKey } from '../rate-limit/client-address.js';
import type { InstalledRateLimits } from '../rate-limit/rate-limited-requests.js';
import type { KeyDirectories } from './key-directory.js';
import type { Claim, NonceStore } from './nonce-store.js';
import type { SeenKeys } from './seen-keys.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body bytes exactly as received: what the signature covers. */
    rawBody?: Buffer;
    /** Set after phase one of verification on a signed route. */
    pendingAuth?: PendingRequest | PendingMessageSignature;
    /** An RFC 9421 signature's agent, once its keyid is resolved (a thumbprint's may change on retry). */
    keyAgentId?: string;
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
  /** The agents seen signing, by key thumbprint (an RFC 9421 keyid); without it a thumbprint is unknown. */
  seenKeys?: SeenKeys | undefined;
  /** Signature-Agent key directories; without them a thumbprint resolves through seenKeys only. */
  keyDirectories?: KeyDirectories | undefined;
}

const EMPTY = Buffer.alloc(0);

/**
 * A public read that takes a signature (`acceptsSignature` routes) and was sent with one: it is
 * verified exactly as on a signed route, and a signature that does not verify is refused.
 */
export function carriesAcceptedSignature(request: FastifyRequest): boolean {
  return request.routeOptions.config.acceptsSignature === true && carriesSignature(request);
}

/** Signed by either scheme: `Authorization: service ...`, or RFC 9421's Signature-Input. */
export function carriesSignature(request: FastifyRequest): boolean {
  return request.headers.authorization !== undefined || request.headers['signature-input'] !== undefined;
}

/** An RFC 9421 request: Signature-Input without an Authorization header (which wins when both come). */
function signsByMessageSignature(request: FastifyRequest): boolean {
  return request.headers.authorization === undefined && request.headers['signature-input'] !== undefined;
}

/** Whether the request has a body to cover (a declared length above 0, or a chunked one). */
function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
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
      const headers = request.raw.headersDistinct;
      if (signsByMessageSignature(request)) {
        const pending = verifier.precheckMessageSignature({
          signatureInput: headers['signature-input'],
          signature: headers['signature'],
          header: (name) => headers[name],
          hasBody: hasBody(request),
          method: request.method,
          rawUrl: request.raw.url ?? '',
          nowMs: now(),
        });
        request.pendingAuth = pending;
        const { signature } = pending;
        // An agentId keyid is verified as such; a thumbprint is resolved to its agent first.
        if (!signature.keyidIsAgentId) request.keyAgentId = await resolveThumbprint(request, pending);
      } else {
        request.pendingAuth = verifier.precheck({
          authorization: headers['authorization'],
          // headersDistinct keeps every value: Node's `headers` silently drops a second Authorization.
          nonce: headers['x-nonce'],
          method: request.method,
          rawUrl: request.raw.url ?? '',
          nowMs: now(),
        });
      }
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
        let verified: VerifiedRequest | undefined;
        try {
          verified =
            pending.scheme === 'rfc9421'
              ? await verifyMessageSignature(request, pending, raw)
              : verifier.verify(pending, raw, audience);
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
        options.seenKeys?.seen(verified.agentId);
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
      void reply.header('vary', 'Authorization, Signature-Input');
      if (request.caller !== undefined) void reply.header('cache-control', 'private, no-store');
    }
    return payload;
  });

  /** The agent whose key has the signature's thumbprint keyid: seen before, or in its Signature-Agent's directory. */
  async function resolveThumbprint(
    request: FastifyRequest,
    pending: PendingMessageSignature,
  ): Promise<string> {
    const { keyid } = pending.signature;
    let agentId: string | undefined;
    try {
      agentId = await options.seenKeys?.agentOf(keyid);
    } catch (error) {
      request.log.error({ err: error }, 'seen keys unavailable');
      throw new DomainError('dependency.unavailable', 'The key store is unavailable; retry shortly');
    }
    if (agentId === undefined) {
      const signatureAgent = pending.fields.get(SIGNATURE_AGENT_HEADER);
      const publicKey =
        signatureAgent === undefined
          ? undefined
          : await options.keyDirectories?.keyFor(signatureAgent, keyid);
      if (publicKey !== undefined) agentId = agentIdFromPublicKey(publicKey);
    }
    if (agentId === undefined)
      throw new AuthError(
        'auth.key_unknown',
        `keyid ${keyid} is the thumbprint of a key this service has not seen sign and no Signature-Agent directory holds; send the agentId (the base58 public key) as keyid, or sign once with it so that the thumbprint is known`,
      );
    return agentId;
  }

  /**
   * An RFC 9421 signature, as its keyid's agent. A 43-character agentId reads as a thumbprint too
   * (one thumbprint in 70 reads as an agentId): a keyid that does not verify as an agentId is tried
   * as a thumbprint, seen or in its Signature-Agent's directory; found neither way, the refusal says
   * both.
   */
  async function verifyMessageSignature(
    request: FastifyRequest,
    pending: PendingMessageSignature,
    body: Buffer,
  ): Promise<VerifiedRequest> {
    const { signature } = pending;
    const agentId = request.keyAgentId ?? signature.keyid;
    try {
      return verifier.verifyMessageSignature(pending, body, audience, agentId);
    } catch (error) {
      if (request.keyAgentId !== undefined || !signature.keyidIsThumbprint) throw error;
      if (
        !(error instanceof AuthError) ||
        !['auth.signature_invalid', 'auth.agent_invalid'].includes(error.code)
      )
        throw error;
      let owner: string;
      try {
        owner = await resolveThumbprint(request, pending);
      } catch (unknown) {
        if (!(unknown instanceof AuthError)) throw unknown;
        throw new AuthError(
          error.code,
          `${error.message}; as a key thumbprint, keyid ${signature.keyid} is of no key this service has seen sign or a Signature-Agent directory holds`,
        );
      }
      return verifier.verifyMessageSignature(pending, body, audience, owner);
    }
  }

  async function fail(request: FastifyRequest, reply: FastifyReply, error: unknown): Promise<FastifyReply> {
    const known = toDomainError(error);
    if (!known) throw error;
    // What an RFC 9421 signature must cover, on every refusal of one (RFC 9421 section 5.1).
    if (error instanceof AuthError && signsByMessageSignature(request))
      void reply.header('accept-signature', acceptSignatureValue(hasBody(request)));
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
