import fc from 'fast-check';
import { hostileCursorText } from './cursor-properties.js';
import type { FuzzFixtures, SignerRole } from './fixtures.js';
import {
  HOSTILE_AUTHORIZATIONS,
  HOSTILE_BODIES,
  HOSTILE_BODY_BYTES,
  HOSTILE_CONTENT_TYPES,
  HOSTILE_DATES,
  HOSTILE_HEADERS,
  HOSTILE_INTEGERS,
  HOSTILE_MESSAGE_SIGNATURES,
  HOSTILE_NONCES,
  HOSTILE_NUMBERS,
  HOSTILE_PATH_SEGMENTS,
  HOSTILE_PAYMENT_FIELDS,
  HOSTILE_PAYMENT_HEADERS,
  HOSTILE_QUERY_SHAPES,
  HOSTILE_QUERY_STRINGS,
  HOSTILE_STRINGS,
  PATH_SHAPES,
  WRONG_TYPES,
  type Hostile,
} from './hostile-values.js';
import type { MessagePlan } from './message-signing.js';
import type { FuzzOperation, FuzzParameter, JsonSchema } from './openapi-operations.js';
import { RawJson, deeplyNested, serializeJson } from './raw-json.js';
import { nearFutureInstant, schemaArbitrary, type SchemaHint } from './schema-arbitrary.js';

/**
 * One fuzzed request, decided from the seed alone: everything that depends on the moment it is
 * sent (timestamps, nonces, signatures, payment signatures, a cursor the server handed out) is
 * described here and made concrete by the runner just before sending.
 */
export interface RequestPlan {
  operation: FuzzOperation;
  method: string;
  /** The path as it goes on the wire. */
  path: string;
  /** The query without `?`; `{{cursor:N}}` stands for the N-th cursor the server has handed out. */
  query: string;
  headers: Array<[string, string]>;
  /** null: no Content-Type header although a body is sent. */
  contentType: string | null;
  body: BodyPlan;
  signer: SignerRole;
  auth: AuthPlan;
  payment: PaymentPlan;
  /** What was made hostile, e.g. `body.startsAt=date:year-0`; empty for a valid-ish request. */
  labels: string[];
  /** GETs that must answer the same before and after, if this write is refused. */
  readBacks: ReadBack[];
}

export type BodyPlan =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; bytes: Uint8Array };

export type AuthPlan =
  | { kind: 'valid' | 'none' | 'bad-signature' | 'wrong-audience' | 'stale' | 'future' | 'replay' }
  | { kind: 'body-mismatch' | 'query-mismatch' | 'duplicate-authorization' | 'duplicate-nonce' }
  | { kind: 'authorization'; value: string }
  | { kind: 'nonce'; value: string }
  | { kind: 'timestamp'; value: string }
  /** RFC 9421 Signature-Input and Signature (message-signing.ts), valid or hostile. */
  | { kind: 'message'; message: MessagePlan };

export type PaymentHeader = 'x-payment' | 'payment-signature';

export type PaymentPlan =
  | { kind: 'none' }
  | { kind: 'raw'; header: PaymentHeader; value: string }
  | {
      kind: 'signed';
      header: PaymentHeader | 'both';
      eventId: string;
      tierId: string;
      version: 1 | 2;
      /** A ledger authorization field changed after signing (`resign`: and signed again). */
      tamper?: { field: string; value: unknown; resign: boolean };
    };

export interface ReadBack {
  what: string;
  target: string;
  /** Signed reads are signed by this role. */
  signer?: SignerRole;
}

export interface PlanContext {
  fixtures: FuzzFixtures;
  /** For `fresh` signers: the agentId is only known when the key is made; read-backs skip it. */
  hint: SchemaHint;
}

type Gen = fc.GeneratorValue;

const uniform = (max: number) => fc.noBias(fc.nat({ max }));
const pick = <T>(g: Gen, items: readonly T[]): T => items[g(uniform, items.length - 1)]!;
const chance = (g: Gen, percent: number): boolean => g(uniform, 99) < percent;

function weighted<T>(g: Gen, entries: ReadonlyArray<readonly [T, number]>): T {
  const live = entries.filter(([, weight]) => weight > 0);
  const total = live.reduce((sum, [, weight]) => sum + weight, 0);
  let roll = g(uniform, total - 1);
  for (const [value, weight] of live) {
    if (roll < weight) return value;
    roll -= weight;
  }
  return live[0]![0];
}

const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const b64url = (text: string | Uint8Array) => Buffer.from(text).toString('base64url');

/** Tampered `cursor` values: the shape each list's keyset cursor has, with keys no column can hold. */
export function hostileCursors(): Hostile<string>[] {
  const now = new Date().toISOString();
  const h = (label: string, value: string): Hostile<string> => ({ label, value });
  return [
    h('cursor:not-base64url', '!!!'),
    h('cursor:text', 'abc'),
    h('cursor:json-1e308', b64url('1e308')),
    h('cursor:json-null', b64url('null')),
    h('cursor:json-text', b64url('"x"')),
    h('cursor:json-empty-text', b64url('""')),
    h('cursor:json-object-empty', b64url('{}')),
    h('cursor:seq-overflow-text', b64url('9223372036854775808')),
    h('cursor:seq-20-digits', b64url('99999999999999999999')),
    h('cursor:seq-json-string-overflow', b64url('"9223372036854775808"')),
    h('cursor:seq-negative', b64url('"-1"')),
    h('cursor:tuple-numbers', b64url('[1,2]')),
    h('cursor:tuple-year-0', b64url(JSON.stringify(['0000-01-01T00:00:00Z', NIL_UUID]))),
    h('cursor:tuple-year-10000', b64url(JSON.stringify(['9999-12-31T23:59:59-14:00', NIL_UUID]))),
    h('cursor:tuple-feb-30', b64url(JSON.stringify(['2026-02-30T00:00:00Z', NIL_UUID]))),
    h('cursor:tuple-date-text', b64url(JSON.stringify(['Tue, 01 Jan 2030', NIL_UUID]))),
    h('cursor:tuple-not-uuid', b64url(JSON.stringify([now, 'not-a-uuid']))),
    h('cursor:tuple-nul-id', b64url(JSON.stringify([now, '\u0000']))),
    h('cursor:tuple-lone-surrogate', b64url('["\\ud800","x"]')),
    h('cursor:keys-int32-overflow', b64url(JSON.stringify({ s: 2_147_483_648, u: 2_147_483_648 }))),
    h('cursor:keys-negative', b64url(JSON.stringify({ s: -1, u: -1 }))),
    h('cursor:keys-fraction', b64url(JSON.stringify({ s: 1.5, u: 0.5 }))),
    h('cursor:keys-strings', b64url(JSON.stringify({ s: 'x', u: 'y' }))),
    h('cursor:keys-1e308', b64url('{"s":1e308,"u":1e308}')),
    h('cursor:keys-unsafe', b64url('{"s":9007199254740993,"u":9007199254740993}')),
    h('cursor:deep-json', b64url(deeplyNested(150, 'array'))),
    h('cursor:too-long', 'A'.repeat(600)),
    h('cursor:invalid-utf8', b64url(Uint8Array.from([0xff, 0xfe]))),
    h('cursor:padded', 'YQ=='),
    h('cursor:percent-nul', '%00'),
  ];
}

/** Moves that end what the other fixtures need: the event's lifecycle, and closing its poll. */
/** Every byte of the UTF-8 of `text` that is not unreserved (RFC 3986), as %XX; never throws. */
function percentEncoded(text: string): string {
  let encoded = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    encoded += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

const LIFECYCLE = /\/(start|end|cancel|close)$/;

function pathParamValue(g: Gen, op: FuzzOperation, param: FuzzParameter, fixtures: FuzzFixtures): string {
  if (chance(g, 12)) return g(() => fc.uuid());
  const agents = Object.values(fixtures.keys).map((key) => key.agentId);
  switch (param.name) {
    case 'qid':
      return pick(g, fixtures.questionIds);
    case 'pid':
      return pick(g, fixtures.pollIds);
    case 'agentId':
      return pick(g, agents);
    case 'handle':
      return pick(g, [...fixtures.handles, 'nobody_here', `@${fixtures.handles[0]}`]);
    default:
      if (op.path.startsWith('/events/series/')) return pick(g, fixtures.seriesIds);
      if (
        op.path.includes('/questions/{qid}') ||
        op.path.includes('/polls/{pid}') ||
        op.path.endsWith('/stage')
      ) {
        return fixtures.events.live;
      }
      if (op.path.endsWith('/rsvp') && chance(g, 60)) {
        return pick(g, [fixtures.events.tiered, fixtures.events.single, fixtures.events.soldOut]);
      }
      return pick(g, [...Object.values(fixtures.events), ...fixtures.disposableEvents]);
  }
}

function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? '');
}

function hostileFor(g: Gen, name: string, schema: JsonSchema | undefined): Hostile<unknown> {
  const type = schema?.['type'];
  const isDate = schema?.['format'] === 'date-time' || /At$/.test(name);
  if (isDate && chance(g, 70)) return pick(g, HOSTILE_DATES);
  if ((type === 'integer' || type === 'number') && chance(g, 70)) return pick(g, HOSTILE_NUMBERS);
  if (type === 'string' && chance(g, 70)) return pick(g, HOSTILE_STRINGS);
  return pick(g, [...WRONG_TYPES, ...HOSTILE_STRINGS, ...HOSTILE_NUMBERS]);
}

/** Every member path in a JSON value (objects and arrays, not the root). */
function memberPaths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) {
    return value.flatMap((item, index) => [[...prefix, index], ...memberPaths(item, [...prefix, index])]);
  }
  if (typeof value === 'object' && value !== null && !(value instanceof RawJson)) {
    return Object.entries(value).flatMap(([key, member]) => [
      [...prefix, key],
      ...memberPaths(member, [...prefix, key]),
    ]);
  }
  return [];
}

function schemaAt(schema: JsonSchema, path: Array<string | number>): JsonSchema | undefined {
  let current: JsonSchema | undefined = schema;
  for (const part of path) {
    if (!current) return undefined;
    const branches = (current['oneOf'] ?? current['anyOf']) as JsonSchema[] | undefined;
    const candidates: JsonSchema[] = branches ?? [current];
    current = undefined;
    for (const candidate of candidates) {
      const next: JsonSchema | undefined =
        typeof part === 'number'
          ? (candidate['items'] as JsonSchema | undefined)
          : ((candidate['properties'] as Record<string, JsonSchema> | undefined)?.[part] ?? undefined);
      if (next) {
        current = next;
        break;
      }
    }
  }
  return current;
}

/** A copy of `value` with the member at `path` replaced (`undefined`: removed). */
function replaced(value: unknown, path: Array<string | number>, member: unknown): unknown {
  if (path.length === 0) return member;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    if (rest.length === 0 && member === undefined) copy.splice(head as number, 1);
    else copy[head as number] = replaced(copy[head as number], rest, member);
    return copy;
  }
  const copy = { ...(value as Record<string, unknown>) };
  if (rest.length === 0 && member === undefined) delete copy[head as string];
  else copy[head as string] = replaced(copy[head as string], rest, member);
  return copy;
}

function hostileBody(
  g: Gen,
  op: FuzzOperation,
  valid: unknown,
): { body: BodyPlan; contentType?: string | null; label: string } {
  const schema = op.body?.schema ?? {};
  const paths = memberPaths(valid);
  const kind = weighted(g, [
    ['member', paths.length > 0 ? 10 : 0],
    ['missing', paths.length > 0 ? 2 : 0],
    ['extra', 2],
    ['duplicate-key', paths.length > 0 ? 1 : 0],
    ['whole', 5],
    ['bytes', 1],
    ['content-type', 2],
  ] as const);
  switch (kind) {
    case 'member': {
      const path = pick(g, paths);
      const name = String(path.filter((part) => typeof part === 'string').at(-1) ?? 'item');
      const hostile = hostileFor(g, name, schemaAt(schema, path));
      return {
        body: { kind: 'json', value: replaced(valid, path, hostile.value) },
        label: `body.${path.join('.')}=${hostile.label}`,
      };
    }
    case 'missing': {
      const path = pick(g, paths);
      return {
        body: { kind: 'json', value: replaced(valid, path, undefined) },
        label: `body.${path.join('.')}=missing`,
      };
    }
    case 'extra': {
      const base = typeof valid === 'object' && valid !== null && !Array.isArray(valid) ? valid : {};
      const extra = pick(g, [
        ['unexpected', 1],
        ['__proto__', { polluted: true }],
        ['constructor', { prototype: { polluted: true } }],
        ['id', NIL_UUID],
        ['hostId', '11111111111111111111111111111111'],
      ] as const);
      return {
        body: {
          kind: 'text',
          text: serializeJson(base).replace(
            /^\{/,
            `{${JSON.stringify(extra[0])}:${serializeJson(extra[1])}${Object.keys(base).length ? ',' : ''}`,
          ),
        },
        label: `body:extra-member-${extra[0]}`,
      };
    }
    case 'duplicate-key': {
      const text = serializeJson(valid);
      const firstKey = /^\{("(?:[^"\\]|\\.)*"):/.exec(text)?.[1];
      if (!firstKey) return { body: { kind: 'text', text }, label: 'body:valid' };
      return {
        body: {
          kind: 'text',
          text: `{${firstKey}:${pick(g, ['null', '1', '"\\u0000"', '[]'])},${text.slice(1)}`,
        },
        label: 'body:duplicate-key',
      };
    }
    case 'whole': {
      const hostile = pick(g, HOSTILE_BODIES);
      return { body: { kind: 'text', text: hostile.value }, label: hostile.label };
    }
    case 'bytes': {
      const hostile = pick(g, HOSTILE_BODY_BYTES);
      return { body: { kind: 'bytes', bytes: hostile.value }, label: hostile.label };
    }
    case 'content-type': {
      const hostile = pick(g, HOSTILE_CONTENT_TYPES);
      return { body: { kind: 'json', value: valid }, contentType: hostile.value, label: hostile.label };
    }
  }
}

function validQueryValue(g: Gen, param: FuzzParameter, context: PlanContext): string | undefined {
  const { fixtures } = context;
  switch (param.name) {
    case 'cursor':
      return chance(g, 50) ? `{{cursor:${g(uniform, 1_000)}}}` : undefined;
    case 'limit':
      return String(g(() => fc.integer({ min: 1, max: 100 })));
    case 'after':
      return String(g(() => fc.integer({ min: 0, max: 20 })));
    case 'hostId':
      return pick(g, Object.values(fixtures.keys)).agentId;
    case 'seriesId':
      return pick(g, [...fixtures.seriesIds, NIL_UUID]);
    case 'tier':
      return pick(g, fixtures.tierIds);
    case 'lastEventId':
      return String(g(() => fc.integer({ min: 0, max: 50 })));
    default: {
      const value = g(() => schemaArbitrary(param.schema, context.hint, param.name));
      if (value === undefined || value === null) return undefined;
      return encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value));
    }
  }
}

function hostileQuery(
  g: Gen,
  op: FuzzOperation,
  pairs: Array<[string, string]>,
): { query: string; label: string } {
  const params = op.queryParams;
  // Cursors, integers and instants are where keyset paging and the database meet: aim there most.
  const interest = (param: FuzzParameter) =>
    param.name === 'cursor'
      ? 5
      : param.schema['type'] === 'integer' || /^(from|to)$/.test(param.name)
        ? 3
        : 1;
  const param =
    params.length > 0 && chance(g, 85)
      ? weighted(
          g,
          params.map((candidate) => [candidate, interest(candidate)] as const),
        )
      : undefined;
  const without = (name: string) => pairs.filter(([key]) => key !== name);
  const join = (list: Array<[string, string]>, extra?: string) =>
    [...list.map(([key, value]) => `${key}=${value}`), ...(extra === undefined ? [] : [extra])].join('&');
  if (!param || chance(g, 15)) {
    const shape = pick(g, HOSTILE_QUERY_SHAPES);
    const name = param?.name ?? 'limit';
    return { query: join(without(name), shape.value(name)), label: `query.${name}:${shape.label}` };
  }
  let hostile: Hostile<string>;
  if (param.name === 'cursor') {
    hostile = chance(g, 50)
      ? pick(g, hostileCursors())
      : { label: 'cursor:generated', value: percentEncoded(g(() => hostileCursorText())) };
  } else if (param.schema['type'] === 'integer') hostile = pick(g, HOSTILE_INTEGERS);
  else if (param.schema['format'] === 'date-time' || /^(from|to)$/.test(param.name)) {
    const date = pick(g, HOSTILE_DATES);
    hostile = { label: date.label, value: chance(g, 70) ? encodeURIComponent(date.value) : date.value };
  } else hostile = pick(g, HOSTILE_QUERY_STRINGS);
  return {
    query: join([...without(param.name), [param.name, hostile.value]]),
    label: `query.${param.name}=${hostile.label}`,
  };
}

function hostileAuth(g: Gen): { auth: AuthPlan; label: string } {
  const kind = weighted(g, [
    ['none', 2],
    ['bad-signature', 2],
    ['wrong-audience', 1],
    ['stale', 1],
    ['future', 1],
    ['replay', 3],
    ['body-mismatch', 1],
    ['query-mismatch', 1],
    ['duplicate-authorization', 1],
    ['duplicate-nonce', 1],
    ['authorization', 2],
    ['nonce', 1],
    ['timestamp', 1],
  ] as const);
  if (kind === 'authorization') {
    const hostile = pick(g, HOSTILE_AUTHORIZATIONS);
    return { auth: { kind, value: hostile.value }, label: hostile.label };
  }
  if (kind === 'nonce') {
    const hostile = pick(g, HOSTILE_NONCES);
    return { auth: { kind, value: hostile.value }, label: hostile.label };
  }
  if (kind === 'timestamp') {
    const value = pick(g, [
      '2026-02-30T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '0000-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
    ]);
    return { auth: { kind, value }, label: `auth:timestamp-${value}` };
  }
  return { auth: { kind }, label: `auth:${kind}` };
}

function hostilePayment(
  g: Gen,
  fixtures: FuzzFixtures,
  eventId: string,
): { payment: PaymentPlan; label: string } {
  const header = pick(g, ['x-payment', 'payment-signature'] as const);
  const kind = weighted(g, [
    ['raw', 3],
    ['valid', 2],
    ['both', 1],
    ['tamper', 5],
    ['v2', 1],
  ] as const);
  if (kind === 'raw') {
    const hostile = pick(g, HOSTILE_PAYMENT_HEADERS);
    return { payment: { kind: 'raw', header, value: hostile.value }, label: hostile.label };
  }
  const paid = fixtures.payments.has(eventId) ? eventId : pick(g, [...fixtures.payments.keys()]);
  const tiers = (fixtures.payments.get(paid) ?? []).map((requirements) => requirements.extra.tierId);
  const tierId = pick(g, tiers);
  const signed = { kind: 'signed' as const, eventId: paid, tierId };
  switch (kind) {
    case 'valid':
      return { payment: { ...signed, header, version: 1 }, label: `payment:valid-${tierId}` };
    case 'v2':
      return {
        payment: { ...signed, header: 'payment-signature', version: 2 },
        label: `payment:valid-v2-${tierId}`,
      };
    case 'both':
      return { payment: { ...signed, header: 'both', version: 1 }, label: 'payment:both-headers-differ' };
    case 'tamper': {
      const hostile = pick(g, HOSTILE_PAYMENT_FIELDS);
      const [field, value] = hostile.value;
      const resign = chance(g, 60);
      return {
        payment: { ...signed, header, version: 1, tamper: { field, value, resign } },
        label: `${hostile.label}${resign ? '+resigned' : ''}`,
      };
    }
  }
}

function readBacksFor(
  op: FuzzOperation,
  path: string,
  signer: SignerRole,
  fixtures: FuzzFixtures,
): ReadBack[] {
  if (!op.write) return [];
  const known = new Set([...Object.values(fixtures.events), ...fixtures.disposableEvents]);
  const eventId = /^\/events\/([^/]+)/.exec(path)?.[1];
  const reads: ReadBack[] = [];
  const mine = signer === 'fresh' ? undefined : signer;
  if (op.path.startsWith('/events/series/')) {
    const seriesId = /^\/events\/series\/([^/]+)/.exec(path)?.[1];
    if (seriesId && fixtures.seriesIds.includes(seriesId)) {
      reads.push({ what: 'series', target: `/events/series/${seriesId}` });
    }
  } else if (eventId && known.has(eventId)) {
    reads.push({ what: 'event', target: `/events/${eventId}` });
    if (op.path.includes('/questions')) {
      reads.push({ what: 'questions', target: `/events/${eventId}/questions?sort=new&limit=100` });
    }
    if (op.path.includes('/polls'))
      reads.push({ what: 'polls', target: `/events/${eventId}/polls?limit=100` });
    if (op.path.includes('/stage'))
      reads.push({ what: 'stage', target: `/events/${eventId}/stage?limit=100` });
    if (op.path.includes('/recording')) {
      reads.push({ what: 'recording draft', target: `/events/${eventId}/recording/draft`, signer: 'host' });
    }
    if (op.path.endsWith('/rsvp')) {
      reads.push({ what: 'attendees', target: `/events/${eventId}/rsvps?limit=100`, signer: 'host' });
      reads.push({ what: "host's balance", target: '/ledger/balance', signer: 'host' });
      if (mine && mine !== 'host') {
        reads.push({ what: "signer's tickets", target: '/me/tickets?limit=100', signer: mine });
        reads.push({ what: "signer's balance", target: '/ledger/balance', signer: mine });
      }
    }
  }
  if (mine && op.path === '/directory/me') {
    reads.push({
      what: "signer's card",
      target: `/directory/${fixtures.keys[mine].agentId}`,
      signer: 'stranger',
    });
  }
  if (mine && op.path === '/ledger/faucet') {
    reads.push({ what: "signer's balance", target: '/ledger/balance', signer: mine });
  }
  if (mine && (op.path === '/events' || op.path === '/events/series')) {
    reads.push({
      what: "signer's events",
      target: `/events?hostId=${fixtures.keys[mine].agentId}&limit=100`,
    });
  }
  return reads;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND'];

/** Builds the plan of one request to `op`. */
export function planRequest(g: Gen, op: FuzzOperation, context: PlanContext): RequestPlan {
  const { fixtures } = context;
  const hasPayment = op.headerParams.some((param) => /payment/i.test(param.name));
  const aspect = weighted(g, [
    ['valid', 25],
    ['body', op.body ? 30 : 4],
    ['path', op.pathParams.length > 0 ? 12 : 3],
    [
      'query',
      op.queryParams.some((param) => param.name === 'cursor') ? 25 : op.queryParams.length > 0 ? 15 : 3,
    ],
    ['headers', 6],
    ['auth', op.signed ? 14 : 2],
    ['message-signing', op.signed ? 14 : 2],
    ['payment', hasPayment ? 20 : 0],
    ['method', 2],
  ] as const);
  const labels: string[] = [];

  // Who signs: the host most often, so that valid-ish writes reach the services' logic.
  let signer = weighted<SignerRole>(g, [
    ['host', 40],
    ['attendee', 20],
    ['moderator', 8],
    ['speaker', 5],
    ['stranger', 15],
    ['fresh', 12],
  ]);

  const values: Record<string, string> = {};
  for (const param of op.pathParams) values[param.name] = pathParamValue(g, op, param, fixtures);
  // A lifecycle move of a protected fixture by someone allowed to make it would close its stage,
  // polls and Q&A for the rest of the run (whatever else of the request is hostile, it may still
  // succeed): those go to a disposable event, or are made by an attendee, who may not.
  if (LIFECYCLE.test(op.path) && values['id'] && fixtures.protectedEvents.has(values['id'])) {
    const poll = op.path.includes('/polls/');
    if (poll && signer !== 'attendee' && signer !== 'stranger' && signer !== 'fresh') signer = 'attendee';
    else if (!poll && signer === 'host') values['id'] = pick(g, fixtures.disposableEvents);
  }
  let path = fillPath(op.path, values);
  if (aspect === 'path') {
    if (op.pathParams.length > 0 && chance(g, 75)) {
      const param = pick(g, op.pathParams);
      const hostile = pick(g, HOSTILE_PATH_SEGMENTS);
      path = fillPath(op.path, { ...values, [param.name]: hostile.value });
      labels.push(`path.${param.name}=${hostile.label}`);
    } else {
      const shape = pick(g, PATH_SHAPES);
      path = shape.value(path);
      labels.push(shape.label);
    }
  }

  const pairs: Array<[string, string]> = [];
  for (const param of op.queryParams) {
    if (param.required || chance(g, 35)) {
      const value = validQueryValue(g, param, context);
      if (value !== undefined) pairs.push([param.name, value]);
    }
  }
  let query = pairs.map(([key, value]) => `${key}=${value}`).join('&');
  if (aspect === 'query') {
    const hostile = hostileQuery(g, op, pairs);
    query = hostile.query;
    labels.push(hostile.label);
  }

  let body: BodyPlan = { kind: 'none' };
  let contentType: string | null = 'application/json';
  if (op.body && (op.body.required || chance(g, 70))) {
    body = { kind: 'json', value: g(() => schemaArbitrary(op.body!.schema, context.hint)) };
  }
  // Content-Digest needs a body: a route that reads one gets one.
  if (aspect === 'message-signing' && body.kind === 'none' && op.body) {
    body = { kind: 'json', value: g(() => schemaArbitrary(op.body!.schema, context.hint)) };
  }
  if (aspect === 'body') {
    const valid =
      body.kind === 'json'
        ? body.value
        : op.body
          ? g(() => schemaArbitrary(op.body!.schema, context.hint))
          : {};
    const hostile = hostileBody(g, op, valid);
    body = hostile.body;
    if (hostile.contentType !== undefined) contentType = hostile.contentType;
    labels.push(op.body ? hostile.label : `no-body-route:${hostile.label}`);
  }

  const headers: Array<[string, string]> = [['accept', 'application/json']];
  if (aspect === 'headers') {
    const hostile = pick(g, HOSTILE_HEADERS);
    for (const [name, value] of hostile.value) {
      const existing = headers.findIndex(([key]) => key === name);
      if (existing >= 0) headers.splice(existing, 1);
      headers.push([name, value]);
    }
    labels.push(hostile.label);
  }

  let auth: AuthPlan = { kind: op.signed || chance(g, 10) ? 'valid' : 'none' };
  if (aspect === 'auth') {
    const hostile = hostileAuth(g);
    auth = hostile.auth;
    labels.push(hostile.label);
  } else if (aspect === 'message-signing') {
    const hostile = pick(
      g,
      HOSTILE_MESSAGE_SIGNATURES.filter((candidate) => body.kind !== 'none' || !candidate.value.needsBody),
    );
    const tamper = hostile.value;
    if (tamper.fresh) signer = 'fresh';
    auth = {
      kind: 'message',
      message: {
        keyid: signer !== 'fresh' && chance(g, 50) ? 'thumbprint' : 'agentId',
        tag: chance(g, 50),
        tamper,
        expect: tamper.refused ? 'refused' : 'any',
      },
    };
    labels.push(hostile.label);
  } else if (auth.kind === 'valid' && chance(g, 35)) {
    // Every signed operation under RFC 9421 as well, signed by signMessageRequest: keyid the
    // agentId, or (for the fixtures' agents, seen signing before the run) the key's thumbprint.
    const keyid = signer !== 'fresh' && chance(g, 50) ? 'thumbprint' : 'agentId';
    const tag = chance(g, 50);
    auth = { kind: 'message', message: { keyid, tag, expect: aspect === 'valid' ? 'verified' : 'any' } };
    labels.push(`rfc9421:keyid-${keyid}${tag ? '+web-bot-auth' : ''}`);
  }

  let payment: PaymentPlan = { kind: 'none' };
  if (aspect === 'payment') {
    const hostile = hostilePayment(g, fixtures, values['id'] ?? fixtures.events.tiered);
    payment = hostile.payment;
    labels.push(hostile.label);
  }

  let method = op.method;
  if (aspect === 'method') {
    method = pick(
      g,
      METHODS.filter((candidate) => candidate !== op.method),
    );
    labels.push(`method:${method}`);
  }

  return {
    operation: op,
    method,
    path,
    query,
    headers,
    contentType,
    body,
    signer,
    auth,
    payment,
    labels,
    readBacks: method === op.method ? readBacksFor(op, path, signer, fixtures) : [],
  };
}

/** Member generators for what a schema cannot say: real ids, zones, rules, amounts. */
export function fixtureHint(fixtures: FuzzFixtures): SchemaHint {
  const agentIds = Object.values(fixtures.keys).map((key) => key.agentId);
  const agentId = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...agentIds) },
    { weight: 1, arbitrary: fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/) },
  );
  const timezone = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        'UTC',
        'Europe/Berlin',
        'America/New_York',
        'Asia/Kathmandu',
        'Pacific/Chatham',
        'Australia/Lord_Howe',
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'Mars/Olympus',
        '+05:00',
        '',
        'europe/berlin',
        'Etc/GMT+14',
        'UTC\u0000',
        'A'.repeat(200),
      ),
    },
  );
  const rrule = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        'FREQ=WEEKLY;COUNT=4',
        'FREQ=DAILY;COUNT=3',
        'FREQ=MONTHLY;BYDAY=-1FR;COUNT=3',
        'FREQ=WEEKLY;BYDAY=MO,WE;INTERVAL=2;COUNT=5',
        'FREQ=MONTHLY;BYMONTHDAY=31;COUNT=4',
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'FREQ=SECONDLY',
        'FREQ=DAILY',
        'FREQ=DAILY;COUNT=1000',
        'FREQ=DAILY;INTERVAL=99',
        'FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=31',
        'FREQ=MONTHLY;BYMONTHDAY=30;BYDAY=1MO',
        'FREQ=DAILY;UNTIL=99991231T235959Z',
        'FREQ=DAILY;UNTIL=00000101',
        'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;INTERVAL=99;COUNT=1000',
        'RRULE:FREQ=DAILY;COUNT=2',
        'FREQ=DAILY;COUNT=2;DTSTART=20270101T000000Z',
        'FREQ=DAILY;;COUNT=2',
        'FREQ=DAILY;COUNT=0',
        'FREQ=DAILY;COUNT=99999999999999999999',
      ),
    },
  );
  const nextYear = new Date().getUTCFullYear() + 1;
  const localStart = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        `${nextYear}-03-28T02:30`,
        `${nextYear}-01-31T10:00`,
        `${nextYear}-10-31T01:30:00`,
        `${nextYear}-06-15T19:00`,
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '0000-01-01T00:00',
        '9999-12-31T23:59',
        `${nextYear}-02-30T10:00`,
        `${nextYear}-01-01T10:00Z`,
        '275760-09-13T00:00',
      ),
    },
  );
  const amount = fc.integer({ min: 1, max: 100_000 }).map(String);
  return (name, schema) => {
    const pattern = typeof schema['pattern'] === 'string' ? schema['pattern'] : '';
    if (pattern.includes('1-9A-HJ-NP-Za-km-z')) return agentId;
    switch (name) {
      case 'timezone':
        return timezone;
      case 'rrule':
        return rrule;
      case 'startsAt':
        return schema['format'] === 'date-time' ? undefined : localStart;
      case 'tierId':
        return fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...fixtures.tierIds) },
          { weight: 1, arbitrary: fc.string({ maxLength: 32 }) },
        );
      case 'optionIds':
        return fc.oneof(
          { weight: 4, arbitrary: fc.subarray(fixtures.pollOptionIds, { minLength: 1 }) },
          { weight: 1, arbitrary: fc.array(fc.uuid(), { minLength: 1, maxLength: 3 }) },
        );
      case 'handle':
        return fc.oneof(
          { weight: 4, arbitrary: fc.stringMatching(/^[a-z0-9_]{3,30}$/) },
          {
            weight: 1,
            arbitrary: fc.constantFrom(
              ...fixtures.handles,
              'UPPER_CASE',
              'ab',
              'x'.repeat(31),
              'ünïcode',
              '@at',
            ),
          },
        );
      case 'amount':
      case 'price':
        return schema['type'] === 'string' ? amount : undefined;
      case 'capacity':
        return fc.integer({ min: 1, max: 200 });
      case 'durationMinutes':
        return fc.integer({ min: 1, max: 240 });
      case 'asset':
        return fc.oneof(
          { weight: 5, arbitrary: fc.constant('USDC') },
          { weight: 1, arbitrary: fc.constantFrom('EURC', 'a:b.c_d-e') },
        );
      case 'closesAt':
        return nearFutureInstant();
      default:
        return undefined;
    }
  };
}
