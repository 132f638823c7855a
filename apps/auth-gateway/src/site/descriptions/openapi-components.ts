import { replySchemas } from '@townhall/contracts';
// Registers the edge's own components (Problem, PaymentRequired, CloudEvent, ...) beside the
// services' replies, which @townhall/contracts registers.
import './edge-schemas.js';
import { z } from 'zod';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from '../../idempotency/idempotency-key.js';
import {
  IDEMPOTENCY_KEY_DESCRIPTION,
  IDEMPOTENT_REPLAYED_DESCRIPTION,
  PAYMENT_REQUIRED_HEADER_DESCRIPTION,
  PAYMENT_RESPONSE_HEADER_DESCRIPTION,
} from './api-description.js';
import { componentsOf, tidy } from './json-schema-shape.js';

/*
 * The shared parts of the OpenAPI document (`components`): the reply schemas, the headers and the
 * Idempotency-Key parameter, which operations refer to by `$ref`.
 */

export type Json = Record<string, unknown>;

export const JSON_TYPE = 'application/json';
export const EVENT_STREAM_TYPE = 'text/event-stream';
export const PROBLEM_TYPE = 'application/problem+json';

/** A zod schema as JSON Schema 2020-12, OpenAPI 3.1's dialect. */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  delete json['$schema'];
  return tidy(json) as Json;
}

/**
 * The reply schemas, each `#/components/schemas/<id>`. Replies may gain fields (a compatible
 * change), so objects are left open; a problem also carries extension members (x402).
 */
export function componentSchemas(): Record<string, Json> {
  return Object.fromEntries(componentsOf(replySchemas, 'draft-2020-12', '#/components/schemas/'));
}

/** A reply's schema: a reference to its component when it has one, else inline. */
export function replySchema(schema: z.ZodType): Json {
  const id = replySchemas.get(schema)?.id;
  return id ? { $ref: `#/components/schemas/${id}` } : jsonSchema(schema, 'output');
}

export function headerRef(name: string): Json {
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

/** The header parameters that carry base64 JSON, by name. */
export const ENCODED_JSON_HEADERS: Record<string, Json> = {
  // x402 v1: on the built-in ledger the payload is a LedgerPayment.
  'X-PAYMENT': base64Json('LedgerPayment'),
  // x402 v2 payloads (with `accepted`): no schema of this server's own.
  'PAYMENT-SIGNATURE': base64Json(),
  'PAYMENT-REQUIRED': base64Json(),
  'X-PAYMENT-RESPONSE': base64Json('PaymentResponse'),
  'PAYMENT-RESPONSE': base64Json('PaymentResponse'),
};

export const HEADERS: Record<string, Json> = {
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
    description: '`attachment; filename="<name>"`: a calendar (`.ics`) or a report (`.csv`) to save',
    schema: { type: 'string' },
  },
  ETag: { description: 'Changes whenever the document does', schema: { type: 'string' } },
  'Cache-Control': { schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description: IDEMPOTENT_REPLAYED_DESCRIPTION,
    schema: { type: 'string', enum: ['true'] },
  },
};

export const IDEMPOTENCY_KEY = 'Idempotency-Key';

/** On every signed write, by reference (components.parameters). */
export const IDEMPOTENCY_KEY_PARAMETER: Json = {
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
