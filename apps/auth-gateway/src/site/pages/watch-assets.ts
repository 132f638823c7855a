import { createHash } from 'node:crypto';
import { Controller, Get, Headers, Param, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { DomainError } from '@townhall/contracts';
import type { FastifyReply } from 'fastify';
import { entityTagOf, matchesEntityTag } from '../../entity-tag.js';
import { browserProgram } from '../browser-programs.js';
import { WATCH_STYLE } from './watch-style.js';

/** A static file of the pages, held in memory. */
export interface PageAsset {
  /** Where the pages link it: the name with a hash of the content, cached for good. */
  url: string;
  type: string;
  body: string;
  etag: string;
}

function assetOf(name: string, extension: string, type: string, body: string): PageAsset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { url: `/assets/${name}.${hash}.${extension}`, type, body, etag: entityTagOf(body) };
}

export const WATCH_ASSETS = {
  css: assetOf('watch', 'css', 'text/css; charset=utf-8', WATCH_STYLE),
  js: assetOf('watch', 'js', 'text/javascript; charset=utf-8', browserProgram('watch')),
} as const;

/** Served by hashed name (immutable) and by plain name (`watch.css`: revalidated by ETag). */
const FILES = new Map<string, { asset: PageAsset; immutable: boolean }>();
for (const [extension, asset] of Object.entries(WATCH_ASSETS)) {
  FILES.set(asset.url.slice('/assets/'.length), { asset, immutable: true });
  FILES.set(`watch.${extension}`, { asset, immutable: false });
}

/**
 * `GET /assets/{file}`: the pages' stylesheet and script, the only files they load (their CSP
 * allows nothing else). A hashed name changes with the content, so browsers keep it a year
 * without asking; the plain name is for people and tools, revalidated each time. Never rate
 * limited (`unlimited`), like /docs's files: they cost nothing to serve.
 */
@Controller('assets')
export class WatchAssetsController {
  @Get(':file')
  @RouteConfig({ page: 'html', unlimited: true })
  file(
    @Param('file') file: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ): void {
    const found = FILES.get(file);
    if (!found) throw new DomainError('route.not_found', `No file ${file} under /assets`);
    const { asset, immutable } = found;
    reply
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'public, no-cache')
      .header('etag', asset.etag)
      .header('x-content-type-options', 'nosniff');
    if (matchesEntityTag(ifNoneMatch, asset.etag)) {
      void reply.code(304).send();
      return;
    }
    void reply.type(asset.type).send(asset.body);
  }
}
