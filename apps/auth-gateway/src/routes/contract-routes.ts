import { Controller, Inject, Optional, Req, type Type } from '@nestjs/common';
import {
  DomainError,
  fieldOfParam,
  fieldsNotSent,
  tagOfGroup,
  type HttpRoute,
  type RouteGroup,
} from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CARD_READS, type CardReads } from '../read-cache/card-reads.js';
import { isAboutOneEvent } from '../read-cache/cached-event-reads.js';
import { metaOf } from '../request-context.js';
import { defaultStatus, type GatewayRoute } from './gateway-route.js';
import { mountRoute } from './route.decorator.js';

/**
 * The gateway's routes for a group of contracts' HTTP bindings (libs/contracts `HttpRoute`): one
 * Nest controller whose handlers the signed-request hooks, the limits, the metrics and the
 * API document see as they see an explicit one (`@Route`). A handler gathers the request's fields
 * (the path, and the query string or the JSON body) and forwards them to the contract's service,
 * which validates them against the contract's schema.
 */
export function contractRoutes(group: RouteGroup): Type {
  const tag = tagOfGroup(group);
  @Controller()
  class ContractRoutes {
    constructor(
      @Inject(SERVICE_CLIENT) readonly services: ServiceClient,
      @Optional() @Inject(CARD_READS) readonly cards?: CardReads,
    ) {}
  }
  Object.defineProperty(ContractRoutes, 'name', { value: `${tag}RoutesController` });
  for (const route of Object.values(group)) {
    const handler = function (this: ContractRoutes, request: FastifyRequest): Promise<unknown> {
      const input = inputOf(route, request);
      const ask = () => forward(this.services, route, input, metaOf(request));
      return this.cards?.covers(route) ? this.cards.read(input['agentId'], ask) : ask();
    };
    Object.defineProperty(ContractRoutes.prototype, route.name, {
      value: handler,
      writable: true,
      configurable: true,
    });
    const descriptor = Object.getOwnPropertyDescriptor(ContractRoutes.prototype, route.name)!;
    mountRoute(ContractRoutes.prototype, route.name, descriptor, gatewayRouteOf(route), {
      ...(route.acceptsSignature ? { acceptsSignature: true } : {}),
      ...(isEventRead(route) ? { eventRead: true } : {}),
    });
    Req()(ContractRoutes.prototype, route.name, 0);
  }
  return ContractRoutes;
}

/** A contract's route as the gateway mounts and the API document describes it. */
export function gatewayRouteOf(route: HttpRoute): GatewayRoute {
  const rest = restSchemaOf(route);
  return {
    method: route.method,
    path: route.path,
    name: route.name,
    tag: route.tag,
    signed: route.signed,
    status: route.status ?? defaultStatus(route.method),
    doc: {
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      ...(route.params ? { params: route.params } : {}),
      ...(rest instanceof z.ZodObject && route.rest === 'query' ? { query: rest } : {}),
      ...(rest && route.rest === 'body' ? { body: rest } : {}),
      reply: route.reply,
      codes: [...route.codes],
      ...(isEventRead(route)
        ? {
            // Served from the gateway's read cache (read-cache/): conditional, and shareable for a second.
            statuses: { 200: 'OK', 304: 'Not modified: `If-None-Match` names the current ETag' },
            replyHeaders: ['ETag', 'Cache-Control'],
          }
        : {}),
    },
  };
}

/**
 * A public read about the event in the path (`/events/:id`, `/events/:id/questions`, ...): the
 * gateway may serve it from its cache, which that event's domain events keep current.
 */
export function isEventRead(route: HttpRoute): boolean {
  return (
    route.method === 'GET' &&
    !route.signed &&
    fieldOfParam(route, 'id') === 'eventId' &&
    isAboutOneEvent(route.path)
  );
}

/**
 * The request's fields: the query string or the JSON body (which must be an object, when there
 * is one), then the path parameters as their contract fields, then what the route fixes.
 */
function inputOf(route: HttpRoute, request: FastifyRequest): Record<string, unknown> {
  const rest = route.rest === 'query' ? request.query : route.rest === 'body' ? request.body : undefined;
  if (rest !== undefined && (typeof rest !== 'object' || rest === null || Array.isArray(rest)))
    throw new DomainError('validation.failed', 'The body must be a JSON object', [
      { field: '(body)', message: 'must be a JSON object' },
    ]);
  const fields = route.bodyField ? { [route.bodyField]: rest ?? {} } : rest;
  const params = request.params as Record<string, string>;
  const fromPath = Object.fromEntries(
    Object.entries(params).map(([param, value]) => [fieldOfParam(route, param), value]),
  );
  return { ...(fields as Record<string, unknown> | undefined), ...fromPath, ...route.fixed };
}

/**
 * Sends what the client sent, unchecked, to the service that owns the contract: the service
 * validates it against `contract.request` (400 `validation.failed`, every field named). The one
 * place the gateway hands a service input its own types cannot vouch for.
 */
function forward(
  services: ServiceClient,
  route: HttpRoute,
  input: Record<string, unknown>,
  meta: ReturnType<typeof metaOf>,
): Promise<unknown> {
  return services.send(route.contract, input, meta);
}

/** The request's fields a client sends (not the path's, not the fixed ones), for the document. */
function restSchemaOf(route: HttpRoute): z.ZodType | undefined {
  const request = route.contract.request;
  if (route.rest === 'none') return undefined;
  if (route.bodyField) return request instanceof z.ZodObject ? request.shape[route.bodyField] : undefined;
  const notSent = fieldsNotSent(route);
  if (notSent.length === 0) return request;
  if (!(request instanceof z.ZodObject))
    throw new Error(`${route.tag}.${route.name}: a request with path or fixed fields must be a z.object`);
  const omit: Record<string, true> = Object.fromEntries(notSent.map((name) => [name, true]));
  return request.omit(omit);
}
