import type { HttpMethod, ProblemCode } from '@townhall/contracts';
import type { z } from 'zod';

/**
 * What the API document says of a route beyond its method, path and status: words, the zod
 * schemas of the request parts, the reply schema and the problem codes of the domain.
 */
export interface RouteDoc<Reply extends z.ZodType = z.ZodType> {
  summary: string;
  /** Markdown. */
  description?: string;
  /** Path parameters, keyed as in the route (`:id` is `id`). */
  params?: z.ZodObject;
  query?: z.ZodObject;
  headers?: z.ZodObject;
  /** The JSON body: the contract's request schema less what the path or the route itself supplies. */
  body?: z.ZodType;
  /** The reply body. None for a route that writes its reply itself (the live stream). */
  reply?: Reply;
  /** The reply body of a status whose body is not `reply` (`reply` then covers them all). */
  statusReplies?: Record<number, z.ZodType>;
  /** The reply's media type when it is neither JSON nor the route's `contentType`. */
  produces?: string;
  /** Every success status and what it means, when there is more than the route's one. */
  statuses?: Record<number, string>;
  /**
   * The problem codes of the domain this route answers with. The generic ones are added by the
   * document: signing failures on signed routes, body and validation failures where there is a
   * body or a query, 503/504 where a service is asked.
   */
  codes?: readonly ProblemCode[];
  /** false where no service is asked (no 503 `service.unavailable`, no 504 `service.timeout`). */
  callsService?: boolean;
  /** A paid route (x402): 402 with PAYMENT-REQUIRED, and X-PAYMENT-RESPONSE on success. */
  x402?: boolean;
  /** Names of `components.headers` sent with a success, e.g. `Content-Disposition`. */
  replyHeaders?: string[];
  /** An example of a reply that is not JSON. */
  example?: string;
}

/**
 * One operation of the API as the gateway mounts it: the route data the OpenAPI document is built
 * from, for the contracts' routes (`contractRoutes`) and the explicit ones (`@Route`) alike.
 */
export interface GatewayRoute {
  method: HttpMethod;
  /** As Fastify routes it: `/events/:id/rsvp`. */
  path: string;
  /** The handler's name; the operationId is `<tag><Name>`, e.g. `ticketsRsvp`. */
  name: string;
  /** The OpenAPI tag. */
  tag: string;
  /** The caller signs (docs/protocol/signing.md). */
  signed: boolean;
  /** Never rate limited (rate-limit/rate-limited-requests.ts): it costs nothing and answers anyone. */
  unlimited?: boolean;
  /** The success status the route answers when its handler sets none: 201 for POST, else 200. */
  status: number;
  /** The reply's media type when it is not JSON (`text/calendar; charset=utf-8`). */
  contentType?: string;
  doc: RouteDoc;
}

/** The status a route answers with unless it says otherwise, as Nest does. */
export function defaultStatus(method: HttpMethod): number {
  return method === 'POST' ? 201 : 200;
}
