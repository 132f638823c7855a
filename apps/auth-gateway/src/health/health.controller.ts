import { Controller, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Route } from '../routes/route.decorator.js';
import type { CachedReadiness } from './cached-readiness.js';
import { HealthSchema, ReadinessSchema } from './health-schemas.js';

/** The gateway's one CachedReadiness, shared with the public probes (publicProbesServer). */
export const PUBLIC_READINESS = Symbol('PublicReadiness');

/**
 * The public port's probes. Liveness has no dependencies (a Redis outage must not restart the
 * gateway); readiness is ready or not, from a run of the checks at most once a second
 * (CachedReadiness). The operators' port (PROBE_PORT) runs every check per request and says
 * which failed and why.
 */
@Controller()
export class HealthController {
  constructor(@Inject(PUBLIC_READINESS) private readonly readiness: CachedReadiness) {}

  @Route({
    method: 'GET',
    path: '/healthz',
    tag: 'Health',
    unlimited: true,
    summary: 'Liveness',
    description: 'No dependencies: a Redis or NATS outage must not restart the gateway.',
    reply: HealthSchema,
    callsService: false,
  })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Route({
    method: 'GET',
    path: '/readyz',
    tag: 'Health',
    unlimited: true,
    summary: 'Readiness',
    description:
      "Whether Redis (nonces) and NATS (services) answer, from a check run at most once a second. Which dependency failed, and why, is served on the operators' port (`PROBE_PORT`) only.",
    reply: ReadinessSchema,
    statuses: { 200: 'Ready', 503: 'Not ready' },
    callsService: false,
  })
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<{ ready: boolean }> {
    const ready = await this.readiness.ready();
    reply.code(ready ? 200 : 503);
    return { ready };
  }
}
