import { readFileSync } from 'node:fs';
import { PROBLEM_CODES, type ProblemCode } from '@townhall/contracts';
import type { z } from 'zod';
import { IDEMPOTENT_METHODS, isKeptStatus } from '../../idempotency/idempotency-key.js';
import { isPublicProbe } from '../../health/public-probes.js';
import type { GatewayRoute } from '../../routes/gateway-route.js';
import {
  apiDescription,
  MESSAGE_SIGNATURE_DESCRIPTION,
  NONCE_DESCRIPTION,
  SIGNATURE_INPUT_DESCRIPTION,
  signingDescription,
  TAG_DESCRIPTIONS,
} from './api-description.js';
import {
  componentSchemas,
  ENCODED_JSON_HEADERS,
  HEADERS,
  IDEMPOTENCY_KEY,
  IDEMPOTENCY_KEY_PARAMETER,
  JSON_TYPE,
  jsonSchema,
  type Json,
} from './openapi-components.js';
import { exampleProblem, problemResponse, successResponse } from './openapi-responses.js';

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

export const SIGNATURE_SCHEME = 'serviceSignature';
export const NONCE_SCHEME = 'nonce';
export const MESSAGE_SIGNATURE_SCHEME = 'messageSignature';
export const SIGNATURE_INPUT_SCHEME = 'signatureInput';

/** A signed route takes either scheme: service-auth-v1, or RFC 9421. */
export const SIGNED_ROUTE_SECURITY: Array<Record<string, string[]>> = [
  { [SIGNATURE_SCHEME]: [], [NONCE_SCHEME]: [] },
  { [MESSAGE_SIGNATURE_SCHEME]: [], [SIGNATURE_INPUT_SCHEME]: [] },
];

/** Answered by a signed route before its handler runs (docs/protocol/signing.md section 2). */
export const SIGNED_ROUTE_CODES: readonly ProblemCode[] = [
  'auth.malformed',
  'auth.timestamp_out_of_window',
  'auth.agent_invalid',
  'auth.signature_invalid',
  'auth.nonce_replayed',
  'auth.components_missing',
  'auth.key_unknown',
  // Before any of those: the client address's block after its failed verifications.
  'auth.address_blocked',
  'dependency.unavailable',
];
/** Answered by a signed write that carries an Idempotency-Key (docs/protocol/idempotency.md). */
export const IDEMPOTENT_ROUTE_CODES: readonly ProblemCode[] = [
  'idempotency.key_invalid',
  'idempotency.key_mismatch',
  'idempotency.in_flight',
  'idempotency.too_many_keys',
];

/** A signed POST, PUT, PATCH or DELETE: it takes an `Idempotency-Key` (idempotency/). */
export function takesIdempotencyKey(route: Pick<GatewayRoute, 'signed' | 'method'>): boolean {
  return route.signed && IDEMPOTENT_METHODS.has(route.method);
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

export interface OpenApiOptions {
  /** Every operation of the API, in the order the gateway mounts them. */
  routes: readonly GatewayRoute[];
  /** PUBLIC_BASE_URL: the server, and the audience line of every signing string. */
  serverUrl: string;
  version: string;
}

/**
 * Builds the OpenAPI 3.1 document of the gateway from its route data (routes/gateway-route.ts:
 * the contracts' route groups and the explicit routes, in the order they are mounted): methods,
 * paths, statuses, content types and signed-or-public; request parts from the zod contracts;
 * replies from the reply schemas; problems from the one table of codes.
 */
export function buildOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const { serverUrl } = options;
  const paths: OpenApiDocument['paths'] = {};
  const tags: string[] = [];
  const operationIds = new Set<string>();
  for (const route of options.routes) {
    const operation = operationOf(route);
    if (operationIds.has(operation.operationId))
      throw new Error(`two routes have the operationId ${operation.operationId}`);
    operationIds.add(operation.operationId);
    for (const tag of operation.tags) if (!tags.includes(tag)) tags.push(tag);
    const item = (paths[openApiPath(route.path)] ??= {});
    const method = route.method.toLowerCase();
    if (item[method]) throw new Error(`${route.method} ${route.path} is declared twice`);
    item[method] = operation;
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
        [MESSAGE_SIGNATURE_SCHEME]: {
          type: 'apiKey',
          in: 'header',
          name: 'Signature',
          description: MESSAGE_SIGNATURE_DESCRIPTION,
        },
        [SIGNATURE_INPUT_SCHEME]: {
          type: 'apiKey',
          in: 'header',
          name: 'Signature-Input',
          description: SIGNATURE_INPUT_DESCRIPTION,
        },
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
  const { doc, tag } = route;
  const parameters = [
    ...pathParameters(route, doc.params),
    ...parametersOf(doc.query, 'query'),
    ...parametersOf(doc.headers, 'header'),
    ...(takesIdempotencyKey(route) ? [{ $ref: `#/components/parameters/${IDEMPOTENCY_KEY}` }] : []),
  ];
  const operation: OpenApiOperation = {
    // `eventsCreate`, `ticketsRsvp`: unique, stable, and what Swagger UI deep-links to.
    operationId: `${withFirst(tag.replace(/\s+/g, ''), 'toLowerCase')}${withFirst(route.name, 'toUpperCase')}`,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [tag],
    // `[]`: public, no signature needed (an operation without `security` would leave it unsaid).
    security: route.signed ? SIGNED_ROUTE_SECURITY : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    responses: {},
  };
  if (doc.body) {
    const schema = jsonSchema(doc.body, 'input');
    const required = Array.isArray(schema['required']) && schema['required'].length > 0;
    operation.requestBody = { required, content: { [JSON_TYPE]: { schema } } };
  }

  for (const [status, description] of Object.entries(doc.statuses ?? { [route.status]: '' }))
    operation.responses[status] = successResponse(
      {
        doc,
        mediaType: route.contentType?.split(';')[0]?.trim(),
        idempotent: takesIdempotencyKey(route),
      },
      Number(status),
      description,
    );

  const codes = new Set<ProblemCode>([
    ...(route.signed ? SIGNED_ROUTE_CODES : []),
    ...(takesIdempotencyKey(route) ? IDEMPOTENT_ROUTE_CODES : []),
    ...(doc.body ? BODY_CODES : []),
    ...(doc.query ? (['validation.failed'] as const) : []),
    // A public read refuses any query parameter it does not declare (input/query-policy.ts).
    // ...but the probes, answered before it whatever their query (health/public-probes.ts).
    ...(route.method === 'GET' && !route.signed && !isPublicProbe(route.path)
      ? (['request.unknown_parameter'] as const)
      : []),
    ...(doc.codes ?? []),
    ...(doc.callsService === false ? [] : SERVICE_CODES),
    ...(route.unlimited ? [] : (['rate.limited'] as const)),
  ]);
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of Object.keys(PROBLEM_CODES) as ProblemCode[]) {
    if (!codes.has(code)) continue;
    const status = PROBLEM_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    if (operation.responses[String(status)])
      throw new Error(`${route.method} ${route.path}: ${status} is both a reply and a problem`);
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

function pathParameters(route: GatewayRoute, params: z.ZodObject | undefined): Json[] {
  const inPath = [...route.path.matchAll(/:([A-Za-z]\w*)/g)].map((match) => match[1] as string);
  if (!params)
    return inPath.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  const declared = Object.keys(params.shape).sort();
  if (declared.join() !== [...inPath].sort().join())
    throw new Error(
      `${route.method} ${route.path}: the route's params (${declared.join(', ')}) do not match its path`,
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

/** `/events/:id/rsvp` as OpenAPI writes a path: `/events/{id}/rsvp`. */
function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z]\w*)/g, '{$1}');
}

/** The gateway's version, from its package.json (three levels up from both src/site/descriptions and dist/site/descriptions). */
export function gatewayVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
  };
  return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
}
