import { PROBLEM_CODES, type ProblemCode } from '@townhall/contracts';
import { RETRY_AFTER_STATUSES } from '../../problem/problem.js';
import type { RouteDoc } from '../../routes/gateway-route.js';
import {
  EVENT_STREAM_TYPE,
  headerRef,
  JSON_TYPE,
  PROBLEM_TYPE,
  replySchema,
  type Json,
} from './openapi-components.js';

/*
 * The responses of the OpenAPI document's operations: a route's successes, as its route data
 * states them, and its problems, each code filed under its status with an example.
 */

/** How a route answers, as its success responses need it. */
export interface Answering {
  doc: RouteDoc;
  /** The reply's media type when the route sets one (`text/calendar`), without parameters. */
  mediaType: string | undefined;
  /** A signed write: its answer may be one kept for an Idempotency-Key, replayed. */
  idempotent: boolean;
}

/** One success status of a route, its headers and (but for 204 and 304) its content. */
export function successResponse(
  { doc, mediaType: routeType, idempotent }: Answering,
  status: number,
  description: string,
): Json {
  const headers: Json = { 'X-Request-Id': headerRef('X-Request-Id') };
  for (const name of doc.replyHeaders ?? []) headers[name] = headerRef(name);
  if (doc.x402 && status === 201)
    for (const name of ['X-PAYMENT-RESPONSE', 'PAYMENT-RESPONSE']) headers[name] = headerRef(name);
  if (idempotent) headers['Idempotent-Replayed'] = headerRef('Idempotent-Replayed');
  const text = description || (status === 201 ? 'Created' : 'OK');
  const response: Json = { description: text, headers };
  if (status === 204 || status === 304) return response;
  const mediaType = routeType ?? doc.produces ?? JSON_TYPE;
  if (mediaType === JSON_TYPE) {
    const reply = doc.statusReplies?.[status] ?? doc.reply;
    if (reply) response['content'] = { [mediaType]: { schema: replySchema(reply) } };
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

/** `replayable`: an answer kept for an Idempotency-Key, so it may come again as a replay. */
export function problemResponse(
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
export function exampleProblem(code: ProblemCode, serverUrl: string): Json {
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
