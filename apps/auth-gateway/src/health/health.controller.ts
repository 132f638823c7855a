import { Controller, Inject, Res } from '@nestjs/common';
import { runChecks, type ReadinessCheck } from '@townhall/platform';
import type { FastifyReply } from 'fastify';
import { Route } from '../routes/route.decorator.js';
import { HealthSchema, ReadinessSchema } from './health-schemas.js';

export const READINESS_CHECKS = Symbol('ReadinessChecks');

/** Liveness has no dependencies (a Redis outage must not restart the gateway); readiness checks them. */
@Controller()
export class HealthController {
  constructor(@Inject(READINESS_CHECKS) private readonly checks: Record<string, ReadinessCheck>) {}

  @Route({
    method: 'GET',
    path: '/healthz',
    tag: 'Health',
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
    summary: 'Readiness',
    description: 'Checks Redis (nonces) and NATS (services).',
    reply: ReadinessSchema,
    statuses: { 200: 'Ready', 503: 'Not ready: `checks` says which dependency' },
    callsService: false,
  })
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const result = await runChecks(this.checks);
    reply.code(result.ready ? 200 : 503);
    return result;
  }
}
