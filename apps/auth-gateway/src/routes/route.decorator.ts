import { Delete, Get, Header, HttpCode, Patch, Post, Put, type Type } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { HttpMethod } from '@townhall/contracts';
import type { FastifyContextConfig } from 'fastify';
import type { z } from 'zod';
import { NO_QUERY } from '../input/query-policy.js';
import { defaultStatus, type GatewayRoute, type RouteDoc } from './gateway-route.js';

const METHODS: Record<HttpMethod, (path: string) => MethodDecorator> = {
  GET: Get,
  POST: Post,
  PUT: Put,
  PATCH: Patch,
  DELETE: Delete,
};

/** An explicit route, stated once: where it is mounted, whether it is signed, and its doc. */
export interface RouteSpec<Reply extends z.ZodType = z.ZodType> extends RouteDoc<Reply> {
  method: HttpMethod;
  /** The whole path, as Fastify routes it: `/events/:id/rsvp`. */
  path: string;
  tag: string;
  signed?: true;
  /** A public read that also takes a signature, verified when one is sent (`request.caller`). */
  acceptsSignature?: true;
  /** Never rate limited: a probe, or a document for tools (rate-limit/rate-limited-requests.ts). */
  unlimited?: true;
  /** The success status, when not the method's default (201 for POST, 200 otherwise). */
  status?: number;
  /** The reply's media type when it is not JSON: sent as the route's `content-type`. */
  contentType?: string;
}

/** The routes each controller mounts, in the order they are declared. */
const mounted = new WeakMap<Type, GatewayRoute[]>();

/** The API routes a controller mounts (none for a controller of pages). */
export function routesOf(controller: Type): readonly GatewayRoute[] {
  return mounted.get(controller) ?? [];
}

/**
 * Mounts `route` on a controller's handler through Nest's own decorators (method and path, status,
 * content type, the Fastify route config the hooks read), and records it for `routesOf`.
 */
export function mountRoute(
  prototype: object,
  name: string,
  descriptor: PropertyDescriptor,
  route: GatewayRoute,
  config: FastifyContextConfig = {},
): void {
  METHODS[route.method](route.path)(prototype, name, descriptor);
  RouteConfig({
    ...(route.signed ? { signed: true } : {}),
    ...(route.unlimited ? { unlimited: true } : {}),
    // A read takes the query it documents and nothing else (input/query-policy.ts).
    ...(route.method === 'GET' ? { query: route.doc.query ?? NO_QUERY } : {}),
    ...config,
  })(prototype, name, descriptor);
  if (route.status !== defaultStatus(route.method)) HttpCode(route.status)(prototype, name, descriptor);
  if (route.contentType) Header('content-type', route.contentType)(prototype, name, descriptor);
  const controller = prototype.constructor as Type;
  mounted.set(controller, [...routesOf(controller), route]);
}

/** Handlers that write the reply themselves (`@Res()`) return nothing. */
type Handler<Reply> = (...args: never[]) => Promise<Reply | void> | Reply | void;

/**
 * An explicit route: the ones that are not plain request/reply (libs/contracts `HttpRoute`). The
 * reply schema is checked against the handler's return type at compile time: documenting
 * `EventViewSchema` on a handler that returns a `TicketView` does not compile.
 */
export function Route<S extends z.ZodType = z.ZodVoid>(spec: RouteSpec<S>) {
  return <M extends Handler<z.output<S>>>(
    prototype: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<M>,
  ): void => {
    const { method, path, tag, signed, acceptsSignature, unlimited, status, contentType, ...doc } = spec;
    const route: GatewayRoute = {
      method,
      path,
      name: String(key),
      tag,
      signed: signed === true,
      ...(unlimited ? { unlimited } : {}),
      status: status ?? defaultStatus(method),
      ...(contentType ? { contentType } : {}),
      doc,
    };
    mountRoute(prototype, String(key), descriptor, route, acceptsSignature ? { acceptsSignature } : {});
  };
}
