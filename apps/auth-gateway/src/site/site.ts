import type { Provider, Type } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import type { GatewayRoute } from '../routes/gateway-route.js';
import { routesOf } from '../routes/route.decorator.js';
import { buildAsyncApiDocument } from './descriptions/asyncapi-document.js';
import { ASYNCAPI_DOCUMENT, AsyncApiController } from './descriptions/asyncapi.controller.js';
import { buildOpenApiDocument, gatewayVersion } from './descriptions/openapi-document.js';
import { OPENAPI_DOCUMENT, OpenApiController, PublishedDocument } from './descriptions/openapi.controller.js';
import { installDocsPage } from './docs/docs-page.js';
import { installPageProblems, pageRouterErrors, type RouterErrorHandler } from './pages/page-response.js';
import { WatchAssetsController } from './pages/watch-assets.js';
import { WatchController } from './pages/watch.controller.js';

export interface SiteOptions {
  /** PUBLIC_BASE_URL: the documents' server, and the audience line of every signing string. */
  audience: string;
  /** NATS_URL, which /asyncapi.json names by host and port only; none in standalone mode. */
  natsUrl?: string | undefined;
  /** The API's controllers (GatewayModule's), whose routes (`routesOf`) the OpenAPI document describes. */
  api: readonly Type[];
}

/** The site, as the gateway mounts it beside the API. */
export interface Site {
  /** The pages, their files, and the two documents' routes. */
  controllers: Type[];
  /** The documents, built once here (they change only with the code). */
  providers: Provider[];
  /** Fastify's `frameworkErrors`: on a page's path a page, elsewhere `problemJson`'s problem+json. */
  routerErrors(problemJson: RouterErrorHandler): RouterErrorHandler;
  /** /docs and /docs/errors/{code}, and the hook that answers a page's problems as pages. */
  install(fastify: FastifyInstance): void;
}

/**
 * The gateway's one seam to what it publishes for people and tools, beside the API it serves:
 * the pages for people (pages/: `GET /`, `/events/{id}/watch`, `/assets/{file}`), the docs page
 * (docs/: `/docs`) with their browser programs (browser/, bundled by the build), and the API
 * descriptions (descriptions/: `/openapi.json` from the API's route data, `/asyncapi.json` from
 * the contracts). The site reads the API's route data and problem table; the API imports
 * nothing of the site.
 */
export function siteOf(options: SiteOptions): Site {
  const openApi = buildOpenApiDocument({
    routes: documentedRoutes(options.api),
    serverUrl: options.audience,
    version: gatewayVersion(),
  });
  const asyncApi = buildAsyncApiDocument({ version: openApi.info.version, natsUrl: options.natsUrl });
  return {
    // The documents' routes are operations of the API document; the pages (HTML) are not.
    controllers: [OpenApiController, AsyncApiController, WatchController, WatchAssetsController],
    providers: [
      { provide: OPENAPI_DOCUMENT, useValue: new PublishedDocument(openApi) },
      { provide: ASYNCAPI_DOCUMENT, useValue: new PublishedDocument(asyncApi) },
    ],
    routerErrors: pageRouterErrors,
    install: (fastify) => {
      installDocsPage(fastify, openApi.info.title);
      installPageProblems(fastify);
    },
  };
}

/** Every operation of the OpenAPI document: the API's routes, then the two documents' own. */
export function documentedRoutes(api: readonly Type[]): GatewayRoute[] {
  return [...api, OpenApiController, AsyncApiController].flatMap(routesOf);
}
