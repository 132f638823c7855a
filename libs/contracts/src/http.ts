import type { z } from 'zod';
import type { Contract, ReplyOf, RequestOf } from './contract.js';
import type { ProblemCode } from './problem-codes.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

type AnyContract = Contract<z.ZodType, unknown>;

/**
 * A contract's HTTP binding, the one place a plain request/reply route is stated: the gateway
 * mounts it (apps/auth-gateway/src/routes/contract-routes.ts), the OpenAPI document describes it
 * and the SDK calls it (AgentClient `route`). The request's fields come from the path (each
 * `:name` is the contract field of that name) and from the query string or the JSON body; the
 * service validates them against the contract's request schema. Routes that are not plain
 * request/reply (x402 RSVP, the live stream, calendars, a PUT answering 201 or 200) stay
 * explicit controllers.
 */
export interface HttpRoute<C extends AnyContract = AnyContract> {
  contract: C;
  /** The handler's name; the OpenAPI operationId is `<tag><Name>`, e.g. `directoryGetCard`. */
  name: string;
  /** The OpenAPI tag (and the group the gateway mounts it in). */
  tag: string;
  method: HttpMethod;
  /** e.g. `/directory/:agentId`: each path parameter is the contract field of that name... */
  path: string;
  /** ...unless renamed here: path parameter -> contract field (`id` -> `eventId`). */
  fields?: Record<string, string>;
  /** With `rest: 'body'`: the body is this one contract field (a PATCH's `changes`), not the fields. */
  bodyField?: string;
  /** Fields the route itself supplies (`{ up: false }` for withdrawing an upvote): never sent. */
  fixed?: Record<string, unknown>;
  /** The path parameters as the document shows them, keyed as the path names them. */
  params?: z.ZodObject;
  /** The success status, when not the method's default (201 for POST, 200 otherwise). */
  status?: number;
  /** Where the fields not in the path come from. */
  rest: 'query' | 'body' | 'none';
  /** The caller signs (docs/protocol/signing.md); `false`: a public read. */
  signed: boolean;
  /**
   * A public read that also takes a signature: when the request carries one, the gateway
   * verifies it (401 if it does not verify) and the service sees the caller, who may be shown
   * more (pending questions to moderators). Such a read is never served from or put in a cache.
   */
  acceptsSignature?: true;
  summary: string;
  /** Markdown. */
  description?: string;
  /** The reply schema: its output is exactly the contract's reply type. */
  reply: z.ZodType<ReplyOf<C>>;
  /** The domain's problem codes; the generic ones (signing, validation, 503/504) are added. */
  codes: readonly ProblemCode[];
}

/** A route as its group states it: its name is its key in the group, its tag the group's. */
export type HttpRouteSpec<C extends AnyContract = AnyContract> = Omit<HttpRoute<C>, 'name' | 'tag'>;

/** One route, its reply schema checked against its contract's reply type. */
export function httpRoute<C extends AnyContract>(route: HttpRouteSpec<C>): HttpRouteSpec<C> {
  return route;
}

/** A group of routes under one OpenAPI tag (`TicketRoutes`); each route is named by its key. */
export function routeGroup<R extends Record<string, HttpRouteSpec>>(
  tag: string,
  routes: R,
): { readonly [K in keyof R]: R[K] & { name: K & string; tag: string } } {
  const named = Object.entries(routes).map(([name, route]) => [name, { ...route, name, tag }]);
  return Object.fromEntries(named) as { readonly [K in keyof R]: R[K] & { name: K & string; tag: string } };
}

/** The path parameters of `route`, in order (`/a/:x/b/:y` is `[x, y]`). */
export function pathParamsOf(route: HttpRoute): string[] {
  return [...route.path.matchAll(/:([A-Za-z]\w*)/g)].map((match) => match[1]!);
}

/** The contract field a path parameter carries. */
export function fieldOfParam(route: HttpRoute, param: string): string {
  return route.fields?.[param] ?? param;
}

/** The contract fields a client never sends in the query or body: the path's and the fixed ones. */
export function fieldsNotSent(route: HttpRoute): string[] {
  return [...fieldsInPath(route), ...Object.keys(route.fixed ?? {})];
}

/** The path parameters a route carries, as contract fields. */
export function fieldsInPath(route: HttpRoute): string[] {
  return pathParamsOf(route).map((param) => fieldOfParam(route, param));
}

/** What a client sends for `input`: the path with its parameters filled in, and the rest. */
export function httpRequestOf<C extends AnyContract>(
  route: HttpRoute<C>,
  input: RequestOf<C>,
): { path: string; query?: Record<string, unknown>; body?: unknown } {
  const fields = { ...(input as Record<string, unknown>) };
  for (const name of Object.keys(route.fixed ?? {})) delete fields[name];
  const path = route.path.replace(/:([A-Za-z]\w*)/g, (_, param: string) => {
    const field = fieldOfParam(route as HttpRoute, param);
    const value = fields[field];
    delete fields[field];
    return encodeURIComponent(String(value));
  });
  if (route.rest === 'query') return { path, query: fields };
  if (route.rest === 'body') return { path, body: route.bodyField ? fields[route.bodyField] : fields };
  return { path };
}
