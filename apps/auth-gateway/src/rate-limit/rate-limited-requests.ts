import { DomainError } from '@townhall/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { buildProblem, PROBLEM_CONTENT_TYPE } from '../problem/problem.js';
import { clientAddressKey } from './client-address.js';
import {
  RateLimits,
  type RateLimitDecision,
  type RateLimitKind,
  type RateLimitOptions,
} from './rate-limits.js';
import { rateLimited } from '../http-metrics.js';

/** Never limited: the probes, the metrics scrape and the API's own documentation. */
const UNLIMITED_ROUTES = new Set(['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs', '/docs/']);

export function isUnlimitedRoute(route: string | undefined): boolean {
  return route !== undefined && (UNLIMITED_ROUTES.has(route) || route.startsWith('/docs/'));
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
   * Counts a signed request once its signature verified and its nonce is claimed (so nobody
   * spends another agent's budget, and a replayed request spends nothing), before its body is
   * parsed or anything is forwarded. Answers 429 itself when the agent is over its limit.
   */
  countSignedRequest(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

/**
 * Rate limits (docs/product.md "Limits") as hooks:
 * - an unsigned request (public reads, unknown routes) counts against its client IP's read
 *   quota in onRequest, before any other work;
 * - a signed request counts against its agent's quota once verified: GET/HEAD against the read
 *   quota, every other method against the write quota (with its burst). Whatever the request
 *   then meets (400, 404, 409...) it was a request, and it stays counted.
 * Probes, /metrics, /docs and /openapi.json are never limited. Every limited response, 2xx or
 * not, carries the RateLimit-* headers; a 429 is `rate.limited` with Retry-After.
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

  async function count(
    request: FastifyRequest,
    reply: FastifyReply,
    kind: RateLimitKind,
    subject: string,
    who: string,
  ): Promise<void> {
    const decision = await limits.consume(kind, subject);
    if (!decision) return;
    reply.headers(rateLimitHeaders(decision));
    if (decision.allowed) return;
    rateLimited.inc({ kind });
    options.onLimited?.(kind);
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
  }

  if (limits.limits('read')) {
    fastify.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.config.signed || isUnlimitedRoute(request.routeOptions.url)) return;
      await count(request, reply, 'read', clientAddressKey(request.ip), 'requests from this address');
      if (reply.sent) return reply;
    });
  }

  return {
    countSignedRequest: (request, reply) => {
      const agentId = request.caller;
      if (!agentId) throw new Error('countSignedRequest before the signature was verified');
      return request.method === 'GET' || request.method === 'HEAD'
        ? count(request, reply, 'read', `agent:${agentId}`, 'reads by this agent')
        : count(request, reply, 'write', `agent:${agentId}`, 'writes by this agent');
    },
  };
}
