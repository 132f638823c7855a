import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { isQuietProbe } from './health/public-probes.js';

/**
 * One log line per request, when it completes, with the request id (Fastify binds it
 * to every line of `request.log`), route, status, latency and the verified caller.
 * Fastify's default writes two lines per request, with whole header dumps. A public probe
 * answered 200 writes none: a prober asks every few seconds, and a flood of them must not cost a
 * line each.
 */
export class AccessLog extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'requestId' });
  }

  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (!error && isQuietProbe(request.routeOptions.url, reply.statusCode)) return;
    const line = {
      method: request.method,
      route: request.routeOptions.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      caller: request.caller,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}
