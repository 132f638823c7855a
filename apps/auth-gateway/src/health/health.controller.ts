import { Controller, Get, Inject, Res } from '@nestjs/common';
import { runChecks, type ReadinessCheck } from '@townhall/platform';
import type { FastifyReply } from 'fastify';

export const READINESS_CHECKS = Symbol('ReadinessChecks');

/** Liveness has no dependencies (a Redis outage must not restart the gateway); readiness checks them. */
@Controller()
export class HealthController {
  constructor(@Inject(READINESS_CHECKS) private readonly checks: Record<string, ReadinessCheck>) {}

  @Get('healthz')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const result = await runChecks(this.checks);
    reply.code(result.ready ? 200 : 503);
    return result;
  }
}
