import { isProblemCode } from '@townhall/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { routerError } from '../../problem/framework-errors.js';
import { PROBLEM_CONTENT_TYPE } from '../../problem/problem.js';
import { errorPage } from './error-page.js';
import { prefersHtml } from './html-preference.js';
import { renderDocument, type Markup } from './markup.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A page for people (site/pages/): `html` answers HTML, its errors too; `html-or-json` does so
     * for a client that asks for HTML, JSON otherwise (`GET /`). Not an operation of the API
     * document, whose every error is problem+json (pages are mounted without `@Route`).
     */
    page?: 'html' | 'html-or-json';
  }
}

/**
 * The pages' Content-Security-Policy: nothing but this server's own stylesheet, script and
 * requests (the live stream, the JSON re-reads), data: images (the empty favicon); no inline
 * script or style, no plugins, no `<base>`, no forms, and no framing.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** A watch page's path, for errors raised before a route is known (an id over 100 characters). */
const WATCH_PATH = /^\/events\/[^/?#]*\/watch\/?(\?|$)/;

/**
 * Sends a page: HTML with the CSP, used by a browser only after asking again (a watch page read
 * through the event read cache gets that cache's ETag and `Cache-Control` instead).
 */
export function sendPage(reply: FastifyReply, status: number, page: Markup): void {
  void pageHeaders(reply.code(status)).send(renderDocument(page));
}

function pageHeaders(reply: FastifyReply): FastifyReply {
  return securityHeaders(reply).header('cache-control', 'no-cache').type('text/html; charset=utf-8');
}

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', PAGE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer');
}

/** Whether this request's answers, errors included, are a page for a person. */
function answersPage(request: FastifyRequest): boolean {
  const page = request.routeOptions.config.page;
  if (page === 'html-or-json') return prefersHtml(request.headers.accept);
  return page === 'html';
}

export type RouterErrorHandler = (
  error: Error & { code?: string },
  request: FastifyRequest,
  reply: FastifyReply,
) => void;

/**
 * The router's errors (Fastify's `frameworkErrors`: a path parameter over 100 characters, bad
 * percent-encoding) come before any route or hook: on a watch page's path they are pages too;
 * everywhere else `problemJson` answers them.
 */
export function pageRouterErrors(problemJson: RouterErrorHandler): RouterErrorHandler {
  return (error, request, reply) => {
    if (!WATCH_PATH.test(request.raw.url ?? '')) return problemJson(error, request, reply);
    const problem = routerError(error);
    reply.header('x-request-id', request.id);
    sendPage(
      reply,
      problem.status,
      errorPage({ code: problem.code, detail: problem.message, requestId: request.id }),
    );
  };
}

/**
 * Every problem a page request meets, wherever it is raised (the input policy, the rate limits,
 * the router, a service, the one ProblemFilter), is written as problem+json by the code that
 * raised it; this hook turns it, last, into the same problem as a page: same status and
 * headers (Retry-After), the code and request id on the page, and the pages' CSP.
 */
export function installPageProblems(fastify: FastifyInstance): void {
  fastify.addHook('onSend', async (request, reply, payload) => {
    if (!answersPage(request)) return payload;
    // A page served from the read cache (or a 304) carries the pages' headers too.
    securityHeaders(reply);
    if (typeof payload !== 'string') return payload;
    if (!String(reply.getHeader('content-type') ?? '').startsWith(PROBLEM_CONTENT_TYPE)) return payload;
    const problem = JSON.parse(payload) as { code?: unknown; detail?: unknown; requestId?: unknown };
    if (!isProblemCode(problem.code)) return payload;
    pageHeaders(reply);
    return renderDocument(
      errorPage({
        code: problem.code,
        detail: typeof problem.detail === 'string' ? problem.detail : '',
        requestId: typeof problem.requestId === 'string' ? problem.requestId : request.id,
      }),
    );
  });
}
