import { applyDecorators, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route needs a signed request (docs/protocol/signing.md). */
    signed?: boolean;
    /** A public read that also takes a signature, verified when one is sent. */
    acceptsSignature?: boolean;
  }
}

/** Marks a route as signed: the signed-request hooks verify it before the handler runs. */
export const Signed = () => applyDecorators(RouteConfig({ signed: true }));

/** The agentId the gateway verified for this request. Only on @Signed() routes. */
export const Caller = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  const caller = context.switchToHttp().getRequest<FastifyRequest>().caller;
  if (!caller) throw new Error('@Caller() used on a route that is not @Signed()');
  return caller;
});
