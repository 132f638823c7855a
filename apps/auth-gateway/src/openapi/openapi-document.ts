import { readFileSync } from 'node:fs';
import { RequestMethod, type Type } from '@nestjs/common';
import {
  HEADERS_METADATA,
  HTTP_CODE_METADATA,
  METHOD_METADATA,
  PATH_METADATA,
} from '@nestjs/common/constants.js';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import { PROBLEM_CODES, type ProblemCode, replySchemas } from '@townhall/contracts';
// Registers the edge's own components (Problem, PaymentRequired, CloudEvent, ...) beside the
// services' replies, which @townhall/contracts registers.
import './edge-schemas.js';
import { z } from 'zod';
import {
  apiDescription,
  IDEMPOTENCY_KEY_DESCRIPTION,
  IDEMPOTENT_REPLAYED_DESCRIPTION,
  NONCE_DESCRIPTION,
  PAYMENT_REQUIRED_HEADER_DESCRIPTION,
  PAYMENT_RESPONSE_HEADER_DESCRIPTION,
  signingDescription,
  TAG_DESCRIPTIONS,
} from './api-description.js';
import { API_ROUTE_METADATA, type ApiRouteDoc } from './api-route.decorator.js';
import { openObjects, tidy } from './json-schema-shape.js';
import {
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENT_METHODS,
  isKeptStatus,
} from '../idempotency/idempotency-key.js';
import { RETRY_AFTER_STATUSES } from '../problem/problem.js';
import { isUnlimitedRoute } from '../rate-limit/rate-limited-requests.js';

type Json = Record<string, unknown>;

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Signed operations name both schemes; public ones say `[]` (no signature needed). */
  security: Array<Record<string, string[]>>;
  parameters?: Json[];
  requestBody?: Json;
  responses: Record<string, Json>;
}

export interface OpenApiDocument {
  openapi: string;
  info: {
    title: string;
    version: string;
    description: string;
    license: { name: string; identifier: string };
  };
  servers: Array<{ url: string; description: string }>;
  tags: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: {
    schemas: Record<string, Json>;
    securitySchemes: Record<string, Json>;
    parameters: Record<string, Json>;
    headers: Record<string, Json>;
    responses: Record<string, Json>;
    examples: Record<string, Json>;
  };
}

/** One route of the gateway as Nest's metadata declares it. */
export interface GatewayRoute {
  /** Lower-case, as OpenAPI keys operations. */
  method: string;
  /** OpenAPI form: `/events/{id}/rsvp`. */
  path: string;
  pathParams: string[];
  controller: string;
  handler: string;
  signed: boolean;
  /** The success status Nest answers with: `@HttpCode`, else 201 for POST and 200 otherwise. */
  status: number;
  /** From `@Header('content-type', ...)`. */
  contentType: string | undefined;
  doc: ApiRouteDoc | undefined;
}

export const SIGNATURE_SCHEME = 'serviceSignature';
export const NONCE_SCHEME = 'nonce';
const JSON_TYPE = 'application/json';
const EVENT_STREAM_TYPE = 'text/event-stream';
const PROBLEM_TYPE = 'application/problem+json';

/** Answered by a signed route before its handler runs (docs/protocol/signing.md section 2). */
export const SIGNED_ROUTE_CODES: readonly ProblemCode[] = [
  'auth.malformed',
  'auth.timestamp_out_of_window',
  'auth.agent_invalid',
  'auth.signature_invalid',
  'auth.nonce_replayed',
  'dependency.unavailable',
];
/** Answered by a signed write that carries an Idempotency-Key (docs/protocol/idempotency.md). */
export const IDEMPOTENT_ROUTE_CODES: readonly ProblemCode[] = [
  'idempotency.key_invalid',
  'idempotency.key_mismatch',
  'idempotency.in_flight',
];

/** A signed POST, PUT, PATCH or DELETE: it takes an `Idempotency-Key` (idempotency/). */
export function takesIdempotencyKey(route: Pick<GatewayRoute, 'signed' | 'method'>): boolean {
  return route.signed && IDEMPOTENT_METHODS.has(route.method.toUpperCase());
}
const BODY_CODES: readonly ProblemCode[] = [
  'validation.failed',
  'request.malformed_json',
  'request.too_deep',
  'request.unsupported_media_type',
  'request.body_too_large',
];
const SERVICE_CODES: readonly ProblemCode[] = [
  'service.unavailable',
  'service.overloaded',
  'service.timeout',
];
/** What any request may meet, whichever route it names (or none): every operation's `default`. */
export const ANY_ROUTE_CODES: readonly ProblemCode[] = [
  'route.not_found',
  'route.method_not_allowed',
  'request.path_invalid',
  'request.malformed',
  'request.timeout',
  'request.uri_too_long',
  'request.headers_too_large',
  'validation.failed',
  'internal.error',
];

/** Every route of the given controllers, read from Nest's route metadata, in declaration order. */
export function gatewayRoutes(controllers: readonly Type[]): GatewayRoute[] {
  const routes: GatewayRoute[] = [];
  for (const controller of controllers) {
    const prefixes = pathsOf(Reflect.getMetadata(PATH_METADATA, controller));
    for (const name of Object.getOwnPropertyNames(controller.prototype)) {
      const handler = Object.getOwnPropertyDescriptor(controller.prototype, name)?.value;
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) continue;
      const config = Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as
        { signed?: boolean; page?: string } | undefined;
      // A page for people (watch/) answers HTML, errors too: not an operation of this document.
      if (config?.page) continue;
      const headers = (Reflect.getMetadata(HEADERS_METADATA, handler) ?? []) as Array<{
        name: string;
        value: string;
      }>;
      const contentType = headers.find((header) => header.name.toLowerCase() === 'content-type')?.value;
      for (const prefix of prefixes) {
        for (const suffix of pathsOf(Reflect.getMetadata(PATH_METADATA, handler))) {
          const path = toOpenApiPath(prefix, suffix);
          routes.push({
            method: RequestMethod[method].toLowerCase(),
            path,
            pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string),
            controller: controller.name,
            handler: name,
            signed: config?.signed === true,
            status:
              (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ??
              (method === RequestMethod.POST ? 201 : 200),
            contentType: contentType?.split(';')[0]?.trim(),
            doc: Reflect.getMetadata(API_ROUTE_METADATA, handler) as ApiRouteDoc | undefined,
          });
        }
      }
    }
  }
  return routes;
}

function pathsOf(metadata: unknown): string[] {
  if (Array.isArray(metadata)) return metadata.map(String);
  return [typeof metadata === 'string' ? metadata : ''];
}

function toOpenApiPath(prefix: string, suffix: string): string {
  const segments = [prefix, suffix].flatMap((part) => part.split('/')).filter(Boolean);
  return `/${segments.map((segment) => (segment.startsWith(':') ? `{${segment.slice(1)}}` : segment)).join('/')}`;
}

export interface OpenApiOptions {
  /** The gateway's controllers (GatewayModule's list). */
  controllers: readonly Type[];
  /** PUBLIC_BASE_URL: the server, and the audience line of every signing string. */
  serverUrl: string;
  version: string;
}

/**
 * Builds the OpenAPI 3.1 document of the gateway from its code: routes, methods, statuses,
 * content types and signed-or-public from Nest's metadata; request parts from the zod
 * contracts; replies from the reply schemas; problems from the one table of codes.
 */
export function buildOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const { serverUrl } = options;
  const paths: OpenApiDocument['paths'] = {};
  const tags: string[] = [];
  const operationIds = new Set<string>();
  for (const route of gatewayRoutes(options.controllers)) {
    const operation = operationOf(route);
    if (operationIds.has(operation.operationId))
      throw new Error(`two routes have the operationId ${operation.operationId}`);
    operationIds.add(operation.operationId);
    for (const tag of operation.tags) if (!tags.includes(tag)) tags.push(tag);
    const item = (paths[route.path] ??= {});
    if (item[route.method]) throw new Error(`${route.method.toUpperCase()} ${route.path} is declared twice`);
    item[route.method] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Townhall API',
      version: options.version,
      description: apiDescription(serverUrl),
      license: { name: 'Apache 2.0', identifier: 'Apache-2.0' },
    },
    servers: [
      {
        url: serverUrl,
        description: 'This environment (PUBLIC_BASE_URL): also the audience line of every signing string',
      },
    ],
    // A tag without an entry in TAG_DESCRIPTIONS goes without (and redocly lint says so).
    tags: tags.map((name) => ({
      name,
      ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}),
    })),
    paths,
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        [SIGNATURE_SCHEME]: { type: 'http', scheme: 'service', description: signingDescription(serverUrl) },
        [NONCE_SCHEME]: { type: 'apiKey', in: 'header', name: 'X-Nonce', description: NONCE_DESCRIPTION },
      },
      parameters: { [IDEMPOTENCY_KEY]: IDEMPOTENCY_KEY_PARAMETER },
      headers: HEADERS,
      responses: {
        AnyRouteProblem: problemResponse(ANY_ROUTE_CODES, false, 'Any route may answer these'),
        // Only while an operation refers to it (an unused component is a lint warning).
        ...(Object.values(paths).some((item) => Object.values(item).some((op) => op.responses['4XX']))
          ? {
              AnyRouteClientProblem: problemResponse(
                ANY_ROUTE_CODES.filter((code) => PROBLEM_CODES[code].status < 500),
                false,
                'The client errors any route may answer (also part of `default`)',
              ),
            }
          : {}),
      },
      examples: Object.fromEntries(
        (Object.keys(PROBLEM_CODES) as ProblemCode[]).map((code) => [
          code,
          { summary: PROBLEM_CODES[code].title, value: exampleProblem(code, serverUrl) },
        ]),
      ),
    },
  };
}

function operationOf(route: GatewayRoute): OpenApiOperation {
  const doc: ApiRouteDoc = route.doc ?? { summary: `${route.controller}.${route.handler}` };
  const tag = doc.tag ?? route.controller.replace(/Controller$/, '');
  const parameters = [
    ...pathParameters(route, doc.params),
    ...parametersOf(doc.query, 'query'),
    ...parametersOf(doc.headers, 'header'),
    ...(takesIdempotencyKey(route) ? [{ $ref: `#/components/parameters/${IDEMPOTENCY_KEY}` }] : []),
  ];
  const operation: OpenApiOperation = {
    // `eventsCreate`, `ticketsRsvp`: unique, stable, and what Swagger UI deep-links to.
    operationId: `${withFirst(tag.replace(/\s+/g, ''), 'toLowerCase')}${withFirst(route.handler, 'toUpperCase')}`,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [tag],
    // `[]`: public, no signature needed (an operation without `security` would leave it unsaid).
    security: route.signed ? [{ [SIGNATURE_SCHEME]: [], [NONCE_SCHEME]: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    responses: {},
  };
  if (doc.body) {
    const schema = jsonSchema(doc.body, 'input');
    const required = Array.isArray(schema['required']) && schema['required'].length > 0;
    operation.requestBody = { required, content: { [JSON_TYPE]: { schema } } };
  }

  for (const [status, description] of Object.entries(doc.statuses ?? { [route.status]: '' }))
    operation.responses[status] = successResponse(route, doc, Number(status), description);

  const codes = new Set<ProblemCode>([
    ...(route.signed ? SIGNED_ROUTE_CODES : []),
    ...(takesIdempotencyKey(route) ? IDEMPOTENT_ROUTE_CODES : []),
    ...(doc.body ? BODY_CODES : []),
    ...(doc.query ? (['validation.failed'] as const) : []),
    ...(doc.codes ?? []),
    ...(doc.callsService === false ? [] : SERVICE_CODES),
    ...(isUnlimitedRoute(route.path) ? [] : (['rate.limited'] as const)),
  ]);
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of Object.keys(PROBLEM_CODES) as ProblemCode[]) {
    if (!codes.has(code)) continue;
    const status = PROBLEM_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    if (operation.responses[String(status)])
      throw new Error(`${route.method.toUpperCase()} ${route.path}: ${status} is both a reply and a problem`);
    operation.responses[String(status)] = problemResponse(
      list,
      doc.x402 === true && status === 402,
      undefined,
      takesIdempotencyKey(route) && isKeptStatus(status),
    );
  }
  // Routes with no client error of their own (health, this document) still meet the ones any
  // route may answer (a malformed or slow request, headers too large): say so as `4XX`.
  if (!Object.keys(operation.responses).some((status) => status.startsWith('4')))
    operation.responses['4XX'] = { $ref: '#/components/responses/AnyRouteClientProblem' };
  operation.responses['default'] = { $ref: '#/components/responses/AnyRouteProblem' };
  return operation;
}

function withFirst(word: string, change: 'toLowerCase' | 'toUpperCase'): string {
  return `${word.charAt(0)[change]()}${word.slice(1)}`;
}

function successResponse(route: GatewayRoute, doc: ApiRouteDoc, status: number, description: string): Json {
  const headers: Json = { 'X-Request-Id': headerRef('X-Request-Id') };
  for (const name of doc.replyHeaders ?? []) headers[name] = headerRef(name);
  if (doc.x402 && status === 201)
    for (const name of ['X-PAYMENT-RESPONSE', 'PAYMENT-RESPONSE']) headers[name] = headerRef(name);
  if (takesIdempotencyKey(route)) headers['Idempotent-Replayed'] = headerRef('Idempotent-Replayed');
  const text = description || (status === 201 ? 'Created' : 'OK');
  const response: Json = { description: text, headers };
  if (status === 204 || status === 304) return response;
  const mediaType = route.contentType ?? doc.produces ?? JSON_TYPE;
  if (mediaType === JSON_TYPE) {
    if (doc.reply) response['content'] = { [mediaType]: { schema: replySchema(doc.reply) } };
  } else if (mediaType === EVENT_STREAM_TYPE) {
    // The wire form as text; the schema (and its example) model the messages as OpenAPI 3.2 does.
    if (doc.example) response['description'] = `${text}\n\n\`\`\`\n${doc.example}\`\`\``;
    response['content'] = {
      [mediaType]: {
        schema: EVENT_STREAM_SCHEMA,
        ...(doc.example ? { example: eventStreamMessages(doc.example) } : {}),
      },
    };
  } else {
    response['content'] = {
      [mediaType]: { schema: { type: 'string' }, ...(doc.example ? { example: doc.example } : {}) },
    };
  }
  return response;
}

/**
 * The live stream as OpenAPI 3.2 models `text/event-stream` in `schema` (3.1 says nothing of
 * it): an array of its messages, each an object of its SSE fields, comments left out. `data`
 * is the CloudEvent JSON, or what a `history.cut` message says.
 */
const EVENT_STREAM_SCHEMA: Json = {
  type: 'array',
  description:
    'The messages of the stream, in order (OpenAPI 3.2 models an event stream so); `: keep-alive` comments are left out',
  items: {
    type: 'object',
    properties: {
      id: { type: 'string', description: 'The stream sequence: resume after it with `Last-Event-ID`' },
      event: {
        type: 'string',
        description: 'The CloudEvent `type`, e.g. `townhall.stage.posted`, or `history.cut`',
      },
      data: {
        type: 'string',
        contentMediaType: JSON_TYPE,
        contentSchema: {
          anyOf: [
            { $ref: '#/components/schemas/CloudEvent' },
            {
              type: 'object',
              description:
                '`event: history.cut`: the resume went beyond the replay limit; read the lists again',
              required: ['lastEventId', 'resumedAfter', 'skipped'],
              properties: {
                lastEventId: { type: 'string', description: 'The Last-Event-ID the client resumed from' },
                resumedAfter: {
                  type: 'string',
                  description: "Replay goes on after this id (the message's own `id`)",
                },
                skipped: {
                  type: 'integer',
                  description: 'Stream messages between the two that were not sent',
                },
              },
            },
          ],
        },
      },
      retry: { type: 'integer', minimum: 0, description: 'Reconnection delay in ms (the first message)' },
    },
  },
};

/** An SSE text as the messages it dispatches (HTML's event-stream parsing, minus the edge cases). */
function eventStreamMessages(text: string): Array<Record<string, string | number>> {
  const messages: Array<Record<string, string | number>> = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const message: Record<string, string | number> = {};
    for (const line of block.split(/\r?\n/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'retry') message['retry'] = Number(value);
      else if (field === 'data')
        message['data'] = message['data'] === undefined ? value : `${String(message['data'])}\n${value}`;
      else if (field === 'id' || field === 'event') message[field] = value;
    }
    if (Object.keys(message).length > 0) messages.push(message);
  }
  return messages;
}

function replySchema(schema: z.ZodType): Json {
  const id = replySchemas.get(schema)?.id;
  return id ? { $ref: `#/components/schemas/${id}` } : jsonSchema(schema, 'output');
}

/** `replayable`: an answer kept for an Idempotency-Key, so it may come again as a replay. */
function problemResponse(
  codes: readonly ProblemCode[],
  x402: boolean,
  intro?: string,
  replayable = false,
): Json {
  const statuses = new Set(codes.map((code) => PROBLEM_CODES[code].status));
  const lines = codes.map((code) => `- \`${code}\`: ${PROBLEM_CODES[code].title}`);
  const headers: Json = { 'X-Request-Id': headerRef('X-Request-Id') };
  if (statuses.has(401)) headers['WWW-Authenticate'] = headerRef('WWW-Authenticate');
  if (
    [...statuses].some((status) => RETRY_AFTER_STATUSES.has(status)) ||
    codes.includes('idempotency.in_flight')
  )
    headers['Retry-After'] = headerRef('Retry-After');
  if (x402) headers['PAYMENT-REQUIRED'] = headerRef('PAYMENT-REQUIRED');
  if (replayable) headers['Idempotent-Replayed'] = headerRef('Idempotent-Replayed');
  return {
    description: [intro ?? '', ...lines].filter(Boolean).join('\n'),
    headers,
    content: {
      [PROBLEM_TYPE]: {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/Problem' },
            ...(x402 ? [{ $ref: '#/components/schemas/PaymentRequired' }] : []),
            { properties: { code: { enum: [...codes] } } },
          ],
        },
        examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])),
      },
    },
  };
}

const X402_REASONS: Partial<Record<ProblemCode, string>> = {
  'payment.required': 'X-PAYMENT header is required',
  'payment.insufficient_funds': 'insufficient_funds',
};

/** One per code; a 402 is also an x402 PaymentRequired. */
function exampleProblem(code: ProblemCode, serverUrl: string): Json {
  const { status, title } = PROBLEM_CODES[code];
  return {
    ...(status === 402
      ? {
          x402Version: 1,
          error: X402_REASONS[code] ?? 'amount_mismatch',
          accepts: [
            {
              scheme: 'exact',
              network: 'ledger:production',
              maxAmountRequired: '2500000',
              asset: 'USDC',
              payTo: '<host agentId>',
              resource: `${serverUrl}/events/<id>/rsvp?tier=vip`,
              description: 'AMA: VIP',
              mimeType: 'application/json',
              maxTimeoutSeconds: 300,
              extra: { eventId: '<id>', tierId: 'vip' },
            },
          ],
        }
      : {}),
    type: `${serverUrl}/docs/errors/${code}`,
    title,
    status,
    detail: title,
    code,
    requestId: '2f1e6a0c-3d6b-4a53-9d0e-8f6f5f0c2b7a',
    ...(code === 'validation.failed' ? { errors: [{ field: 'title', message: 'must not be empty' }] } : {}),
  };
}

function pathParameters(route: GatewayRoute, params: z.ZodObject | undefined): Json[] {
  if (!params)
    return route.pathParams.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  const declared = Object.keys(params.shape).sort();
  if (declared.join() !== [...route.pathParams].sort().join())
    throw new Error(
      `${route.method.toUpperCase()} ${route.path}: @ApiRoute params (${declared.join(', ')}) do not match the path`,
    );
  return parametersOf(params, 'path');
}

/** One parameter per property of a zod object, in the order the object declares them. */
function parametersOf(schema: z.ZodObject | undefined, location: 'path' | 'query' | 'header'): Json[] {
  if (!schema) return [];
  const json = jsonSchema(schema, 'input');
  const required = new Set(Array.isArray(json['required']) ? (json['required'] as string[]) : []);
  const properties = (json['properties'] ?? {}) as Record<string, Json>;
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: location === 'header' ? { ...rest, ...(ENCODED_JSON_HEADERS[name] ?? {}) } : rest,
    };
  });
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  delete json['$schema'];
  return tidy(json) as Json;
}

/**
 * The reply schemas, each `#/components/schemas/<id>`. Replies may gain fields (a compatible
 * change), so objects are left open; a problem also carries extension members (x402).
 */
function componentSchemas(): Record<string, Json> {
  const { schemas } = z.toJSONSchema(replySchemas, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Json> };
  return Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      const { $schema: _dialect, $id: _id, ...rest } = schema;
      return [id, tidy(openObjects(rest)) as Json];
    }),
  );
}

function headerRef(name: string): Json {
  if (!HEADERS[name]) throw new Error(`no components.headers entry named ${name}`);
  return { $ref: `#/components/headers/${name}` };
}

/**
 * x402 headers carry standard base64 of a JSON document: JSON Schema's content keywords say so,
 * and `contentSchema` names the document's schema where this server defines one.
 */
function base64Json(schemaId?: string): Json {
  return {
    contentEncoding: 'base64',
    contentMediaType: JSON_TYPE,
    ...(schemaId ? { contentSchema: { $ref: `#/components/schemas/${schemaId}` } } : {}),
  };
}

const ENCODED_JSON_HEADERS: Record<string, Json> = {
  // x402 v1: on the built-in ledger the payload is a LedgerPayment.
  'X-PAYMENT': base64Json('LedgerPayment'),
  // x402 v2 payloads (with `accepted`): no schema of this server's own.
  'PAYMENT-SIGNATURE': base64Json(),
  'PAYMENT-REQUIRED': base64Json(),
  'X-PAYMENT-RESPONSE': base64Json('PaymentResponse'),
  'PAYMENT-RESPONSE': base64Json('PaymentResponse'),
};

const HEADERS: Record<string, Json> = {
  'X-Request-Id': {
    description: 'The request id (yours, if you sent a sane `x-request-id`); also `requestId` in problems',
    schema: { type: 'string' },
  },
  'WWW-Authenticate': {
    description: '`service realm="<server>"`',
    schema: { type: 'string' },
  },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
  'PAYMENT-REQUIRED': {
    description: PAYMENT_REQUIRED_HEADER_DESCRIPTION,
    schema: { type: 'string', ...ENCODED_JSON_HEADERS['PAYMENT-REQUIRED'] },
  },
  'X-PAYMENT-RESPONSE': {
    description: PAYMENT_RESPONSE_HEADER_DESCRIPTION,
    schema: { type: 'string', ...ENCODED_JSON_HEADERS['X-PAYMENT-RESPONSE'] },
  },
  'PAYMENT-RESPONSE': {
    description: `The same as X-PAYMENT-RESPONSE (x402 v2 name). ${PAYMENT_RESPONSE_HEADER_DESCRIPTION}`,
    schema: { type: 'string', ...ENCODED_JSON_HEADERS['PAYMENT-RESPONSE'] },
  },
  'Content-Disposition': {
    description: '`attachment; filename="<name>.ics"`',
    schema: { type: 'string' },
  },
  ETag: { description: 'Changes whenever the document does', schema: { type: 'string' } },
  'Cache-Control': { schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description: IDEMPOTENT_REPLAYED_DESCRIPTION,
    schema: { type: 'string', enum: ['true'] },
  },
};

const IDEMPOTENCY_KEY = 'Idempotency-Key';

/** On every signed write, by reference (components.parameters). */
const IDEMPOTENCY_KEY_PARAMETER: Json = {
  name: IDEMPOTENCY_KEY,
  in: 'header',
  required: false,
  description: IDEMPOTENCY_KEY_DESCRIPTION,
  schema: {
    type: 'string',
    minLength: 1,
    maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
    pattern: '^[\\x20-\\x7E]+$',
  },
  example: '8e03978e-40d5-43e8-bc93-6894a57f9324',
};

/** The gateway's version, from its package.json (two levels up from both src/openapi and dist/openapi). */
export function gatewayVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
  };
  return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
}
