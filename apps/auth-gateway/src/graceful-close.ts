import { DomainError } from '@townhall/contracts';
import type { FastifyInstance } from 'fastify';
import { sendProblem } from './problem/problem.js';

/**
 * How the gateway closes (SIGTERM, then app.close()): requests in flight finish; a new request
 * on a keep-alive connection that is still open gets 503 `service.unavailable` with Retry-After
 * (problem+json, so clients retry on another replica); and every response while closing ends
 * its connection, since idle keep-alive connections would otherwise hold the close open for as
 * long as their clients keep them. Register before any other onRequest hook.
 */
export function installGracefulClose(fastify: FastifyInstance, audience: string): void {
  let closing = false;
  fastify.addHook('preClose', async () => {
    closing = true;
    fastify.server.closeIdleConnections();
  });
  fastify.addHook('onRequest', async (request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    sendProblem(
      request,
      reply,
      new DomainError('service.unavailable', 'The gateway is shutting down'),
      audience,
    );
    return reply;
  });
  fastify.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
}
