import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isProblemCode, PROBLEM_CODES } from '@townhall/contracts';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { browserProgram } from '../browser-programs.js';

export const DOCS_PREFIX = '/docs';

/**
 * Everything the page loads comes from this server: Swagger UI's own files, served from the
 * swagger-ui-dist package. It works on a closed network, and this policy keeps it so.
 */
const DOCS_CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'self'",
].join('; ');

/**
 * Every route of the docs page: never rate limited, like the document it renders. They are
 * answered from memory, and reading the documentation spends nothing of a client's read budget.
 */
const UNLIMITED = { config: { unlimited: true } };

/** The only files of swagger-ui-dist the page uses; nothing else of the package is reachable. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

function page(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" type="image/png" href="${DOCS_PREFIX}/favicon-32x32.png">
<link rel="stylesheet" href="${DOCS_PREFIX}/swagger-ui.css">
<style>${SIGNING_STYLE}</style>
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PREFIX}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PREFIX}/docs.js"></script>
</body>
</html>
`;
}

/** The key field that takes the Authorize button's place (style-src allows inline styles). */
const SIGNING_STYLE = `
.swagger-ui .townhall-signing { flex: 1 1 28rem; max-width: 40rem; margin-left: auto; font-family: sans-serif; }
.swagger-ui .townhall-signing label { display: block; font-weight: 700; font-size: 12px; margin-bottom: 4px; }
.swagger-ui .townhall-signing textarea { width: 100%; min-height: 3em; font-family: monospace; font-size: 12px; }
.swagger-ui .townhall-signing__actions { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin: 6px 0; }
.swagger-ui .townhall-signing .townhall-signing__scheme { display: flex; align-items: center; gap: 6px; margin: 0 0 0 auto; }
.swagger-ui .townhall-signing__scheme select { font-size: 12px; }
.swagger-ui .townhall-signing__status { font-size: 12px; margin: 0; word-break: break-all; }
.swagger-ui .townhall-signing__problem { font-size: 12px; margin: 4px 0 0; color: #b00020; }
.swagger-ui .townhall-signed { font-size: 11px; font-weight: 700; padding: 2px 6px; border: 1px solid #49cc90; border-radius: 4px; }
`;

/**
 * `GET /docs`: Swagger UI over `/openapi.json`, and `GET /docs/errors/{code}`, the page that a
 * problem's `type` URL names (RFC 9457: it should explain the problem to a person).
 */
export function installDocsPage(fastify: FastifyInstance, title: string): void {
  // Swagger UI over /openapi.json, signing "Try it out" with the key pasted into the page (site/browser/docs.ts).
  const program = browserProgram('docs');
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const files = new Map<string, Promise<Buffer>>();
  const html = page(title);
  const docsPage = (reply: FastifyReply) =>
    reply.header('content-security-policy', DOCS_CSP).type('text/html; charset=utf-8').send(html);

  fastify.get(DOCS_PREFIX, UNLIMITED, async (_request, reply) => docsPage(reply));
  fastify.get(`${DOCS_PREFIX}/`, UNLIMITED, async (_request, reply) => docsPage(reply));
  fastify.get(`${DOCS_PREFIX}/docs.js`, UNLIMITED, async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').send(program),
  );
  for (const [name, type] of Object.entries(ASSETS)) {
    fastify.get(`${DOCS_PREFIX}/${name}`, UNLIMITED, async (_request, reply) => {
      let file = files.get(name);
      if (!file) files.set(name, (file = readFile(join(dist, name))));
      // The files change only with the package version: let browsers keep them for a day.
      return reply
        .type(type)
        .header('cache-control', 'public, max-age=86400')
        .send(await file);
    });
  }
  fastify.get(`${DOCS_PREFIX}/errors/:code`, UNLIMITED, async (request, reply) => {
    const { code } = request.params as { code: string };
    reply.header('content-security-policy', DOCS_CSP).type('text/html; charset=utf-8');
    if (!isProblemCode(code)) return reply.code(404).send(errorPage(code, 'Unknown problem code', ''));
    const { status, title: meaning } = PROBLEM_CODES[code];
    return reply.send(errorPage(code, meaning, `HTTP ${status}`));
  });
}

function errorPage(code: string, meaning: string, status: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(code)}</title></head>
<body>
<h1><code>${escapeHtml(code)}</code></h1>
<p>${escapeHtml(meaning)}</p>
<p>${escapeHtml(status)}</p>
<p>Problems are <code>application/problem+json</code>; switch on their <code>code</code>. Every code, and the
operations that answer with it: <a href="${DOCS_PREFIX}">the API documentation</a>.</p>
</body>
</html>
`;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
