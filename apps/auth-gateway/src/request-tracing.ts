import { contextOf, isTracing, openSpan, SpanKind, withContext, type TraceCarrier } from '@townhall/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';

type Opened = NonNullable<ReturnType<typeof openSpan>>;

/**
 * While the gateway traces (OTEL_*), each HTTP request is a span (`POST /events/:id/rsvp`:
 * its method and route, its status), continuing the caller's `traceparent` if it sent one, and
 * active for everything the request does: its service requests carry it on in their NATS
 * headers. It records no header, query or body: never a signature, a nonce or a payment. Must be
 * installed before any other hook, so that every later one runs within it.
 */
export function installRequestTracing(fastify: FastifyInstance): void {
  if (!isTracing()) return;
  const spans = new WeakMap<FastifyRequest, Opened>();
  fastify.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const opened = openSpan(`${request.method} ${route}`, {
      kind: SpanKind.SERVER,
      parent: contextOf(request.headers as TraceCarrier),
      attributes: { 'http.request.method': request.method, 'http.route': route },
    });
    if (!opened) {
      done();
      return;
    }
    spans.set(request, opened);
    withContext(opened.context, done);
  });
  // The body arrives in the request stream's events, which run in the context of the socket that
  // read it: once it is read, the rest of the request (validation, the handler, its service
  // requests, its log lines) runs within the request's span again. Binding the stream's listeners
  // instead wrote eight methods onto every request's IncomingMessage, each listener wrapped.
  fastify.addHook('preValidation', (request, _reply, done) => {
    const opened = spans.get(request);
    if (opened) withContext(opened.context, done);
    else done();
  });
  const end = (request: FastifyRequest, status?: number) => {
    const opened = spans.get(request);
    if (!opened) return;
    spans.delete(request);
    if (status !== undefined) opened.span.setAttribute('http.response.status_code', status);
    opened.end();
  };
  fastify.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    end(request);
    done();
  });
}
