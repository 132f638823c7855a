import { DomainError } from '@townhall/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { buildProblem, PROBLEM_CONTENT_TYPE } from '../problem/problem.js';
import type { Counted, WindowCount } from '../auth/nonce-store.js';
import { clientAddressKey } from './client-address.js';
import {
  RateLimits,
  type RateLimitDecision,
  type RateLimitKind,
  type RateLimitOptions,
} from './rate-limits.js';
import { rateLimited } from '../http-metrics.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Never counted against a rate limit, said where the route is declared (`unlimited` in its
     * route data, or its Fastify config): what costs nothing to serve and must answer whoever
     * asks, such as the probes, the API's documents and the static files of the site's pages.
     */
    unlimited?: boolean;
  }
}

/** The RateLimit-* fields (draft-ietf-httpapi-ratelimit-headers) of a decision, and Retry-After on a 429. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
    'ratelimit-policy': decision.policy,
  };
  if (!decision.allowed) headers['retry-after'] = String(decision.resetSeconds);
  return headers;
}

export interface InstalledRateLimits {
  /**
   * The windows a verified signed request spends: its agent's write quota (any method but
   * GET/HEAD) or read quota. The nonce store counts them in the same step as the nonce claim, so
   * nobody spends another agent's budget and a replayed request spends nothing.
   */
  windowsOf(request: FastifyRequest, agentId: string): WindowCount[];
  /**
   * Answers for what the claim counted, before the body is parsed or anything is forwarded: the
   * RateLimit-* headers, and a 429 when the agent is over its limit (then true: the request ends
   * there; `reply.sent` cannot tell, since onSend hooks finish the response later).
   */
  answer(request: FastifyRequest, reply: FastifyReply, counts: readonly Counted[]): boolean;
}

/**
 * Rate limits (docs/product.md "Limits") as hooks:
 * - an unsigned request (public reads, unknown routes) counts against its client IP's read
 *   quota in onRequest, before any other work;
 * - a signed request counts against its agent's quota once verified: GET/HEAD against the read
 *   quota, every other method against the write quota (with its burst). Whatever the request
 *   then meets (400, 404, 409...) it was a request, and it stays counted.
 * A route declared `unlimited` is never limited. Every limited response, 2xx or not, carries the
 * RateLimit-* headers; a 429 is `rate.limited` with Retry-After.
 */
export function installRateLimits(
  fastify: FastifyInstance,
  options: RateLimitOptions,
  audience: string,
): InstalledRateLimits {
  const limits = new RateLimits(
    options.config,
    // The audience keeps environments and deployments that share a Redis apart.
    `townhall:${options.config.TOWNHALL_ENV}:ratelimit:${audience}`,
    options.redis,
  );

  function answer(
    request: FastifyRequest,
    reply: FastifyReply,
    decision: RateLimitDecision | undefined,
    who: string,
  ): boolean {
    if (!decision) return false;
    reply.headers(rateLimitHeaders(decision));
    if (decision.allowed) return false;
    rateLimited.inc({ kind: decision.kind });
    options.onLimited?.(decision.kind);
    const problem = buildProblem(
      new DomainError(
        'rate.limited',
        `Too many ${who} (RateLimit-Policy ${decision.policy}); retry after ${decision.resetSeconds} s`,
      ),
      request.id,
      audience,
    );
    // Not awaited: a reply is thenable and settles only once the response has been written.
    void reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
    return true;
  }

  if (limits.limits('read')) {
    fastify.addHook('onRequest', async (request, reply) => {
      const { signed, unlimited } = request.routeOptions.config;
      if (signed || unlimited) return;
      const decision = await limits.consumeRead(clientAddressKey(request.ip));
      if (answer(request, reply, decision, 'requests from this address')) return reply;
    });
  }

  const kindOf = (request: FastifyRequest): RateLimitKind =>
    request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
  return {
    windowsOf: (request, agentId) => limits.windowsOf(kindOf(request), agentId),
    answer: (request, reply, counts) => {
      const kind = kindOf(request);
      return answer(
        request,
        reply,
        limits.decide(kind, counts),
        kind === 'read' ? 'reads by this agent' : 'writes by this agent',
      );
    },
  };
}
