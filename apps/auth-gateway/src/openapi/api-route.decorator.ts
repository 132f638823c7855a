import { SetMetadata } from '@nestjs/common';
import type { ProblemCode } from '@townhall/contracts';
import type { z } from 'zod';

export const API_ROUTE_METADATA = 'townhall:api-route';

/**
 * What the OpenAPI document cannot read from Nest's own route metadata: words, the zod schemas
 * of the request parts, the reply schema and the problem codes of the domain. The method,
 * path, status, content type and whether the route is signed come from Nest's metadata.
 */
export interface ApiRouteDoc<Reply extends z.ZodType = z.ZodType> {
  summary: string;
  /** Markdown. */
  description?: string;
  /** Overrides the tag taken from the controller's name (`EventsController` is `Events`). */
  tag?: string;
  /** Path parameters, keyed as in the route (`:id` is `id`). */
  params?: z.ZodObject;
  query?: z.ZodObject;
  headers?: z.ZodObject;
  /** The JSON body: the contract's request schema less what the path or the route itself supplies. */
  body?: z.ZodType;
  /** The reply body. None for a route that writes its reply itself (the live stream). */
  reply?: Reply;
  /** The reply's media type when it is neither JSON nor set by `@Header('content-type', ...)`. */
  produces?: string;
  /** Every success status and what it means, when there is more than Nest's default one. */
  statuses?: Record<number, string>;
  /**
   * The problem codes of the domain this route answers with. The generic ones are added by the
   * generator: signing failures on signed routes, body and validation failures where there is a
   * body or a query, 503/504 where a service is asked.
   */
  codes?: ProblemCode[];
  /** false where no service is asked (no 503 `service.unavailable`, no 504 `service.timeout`). */
  callsService?: boolean;
  /** A paid route (x402): 402 with PAYMENT-REQUIRED, and X-PAYMENT-RESPONSE on success. */
  x402?: boolean;
  /** Names of `components.headers` sent with a success, e.g. `Content-Disposition`. */
  replyHeaders?: string[];
  /** An example of a reply that is not JSON. */
  example?: string;
}

/** Handlers that write the reply themselves (`@Res()`) return nothing. */
type Handler<Reply> = (...args: never[]) => Promise<Reply | void> | Reply | void;

/**
 * Documents a route for the OpenAPI document. The reply schema is checked against the handler's
 * return type at compile time: documenting `EventViewSchema` on a handler that returns a
 * `TicketView` does not compile.
 */
export function ApiRoute<S extends z.ZodType = z.ZodVoid>(doc: ApiRouteDoc<S>) {
  return <M extends Handler<z.output<S>>>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<M>,
  ): void => {
    SetMetadata(API_ROUTE_METADATA, doc)(target, key, descriptor);
  };
}
