import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route needs a signed request (docs/protocol/signing.md). */
    signed?: boolean;
    /** A public read that also takes a signature, verified when one is sent. */
    acceptsSignature?: boolean;
  }
}

/** The agentId the gateway verified for this request. Only on signed routes (`signed` in their route data). */
export const Caller = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  const caller = context.switchToHttp().getRequest<FastifyRequest>().caller;
  if (!caller) throw new Error('@Caller() used on a route that is not signed');
  return caller;
});
