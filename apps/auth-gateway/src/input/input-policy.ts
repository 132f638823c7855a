import { DomainError, type FieldError } from '@townhall/contracts';

/**
 * The one input policy of the edge, applied by the gateway's request hooks to every route
 * (body, query and path parameters), before anything is forwarded or recursed into:
 *
 * - a body is UTF-8 JSON (RFC 8259) nested at most MAX_JSON_DEPTH deep, checked on the text
 *   before it is parsed, so no parser, serialiser or validator downstream can overflow a stack;
 * - every string, value or key, is well-formed Unicode (no lone surrogate: Postgres cannot store
 *   one in jsonb) without NUL (U+0000: Postgres refuses it in text and jsonb);
 * - no key `__proto__` (it would be a prototype once copied into an object by assignment).
 *
 * Lengths, ranges and shapes are each contract's own (zod, in libs/contracts), so the services
 * refuse the same inputs whoever sends them; the database is the last line, not the first.
 */
export const MAX_JSON_DEPTH = 32;

const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** NUL, a high surrogate not followed by a low one, or a low one not preceded by a high one. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const BAD_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const TEXT_RULE = 'must be valid Unicode text without NUL (U+0000) or unpaired surrogates';

/** Parses a JSON body under the policy; an empty body is `undefined`. */
export function parseJsonBody(raw: Uint8Array, contentType: string | undefined): unknown {
  if (raw.length === 0) return undefined;
  if (!/^application\/json\s*(;|$)/i.test(contentType ?? '')) {
    throw new DomainError('request.unsupported_media_type', 'Send bodies as application/json');
  }
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw new DomainError('request.malformed_json', 'The body is not UTF-8 JSON');
  }
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
    throw new DomainError('request.too_deep', `The body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DomainError('request.malformed_json', 'The body is not valid JSON');
  }
  assertText(value, '');
  return value;
}

/** Path parameters and the query string, as Fastify decoded them (strings, or arrays of them). */
export function assertTextFields(fields: unknown): void {
  if (typeof fields === 'object' && fields !== null) assertText(fields, '');
}

/**
 * True if arrays and objects nest deeper than `limit`. A linear scan of the text that skips
 * strings, so it costs one pass and no recursion, whatever the input.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c)
        index += 1; // a backslash escapes the next character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (char === 0x5d || char === 0x7d) depth -= 1;
  }
  return false;
}

/** Walks a value already known to be shallow (parsed under the depth limit, or a query). */
function assertText(value: unknown, path: string): void {
  if (typeof value === 'string') {
    if (BAD_TEXT.test(value)) refuse(path, TEXT_RULE);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => assertText(item, join(path, String(index))));
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const field = join(path, key);
    if (key === '__proto__') refuse(field, 'is not an acceptable field name');
    if (BAD_TEXT.test(key)) refuse(path || '(body)', `field names ${TEXT_RULE}`);
    assertText(item, field);
  }
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function refuse(field: string, message: string): never {
  const error: FieldError = { field: field || '(body)', message };
  throw new DomainError('validation.failed', `${error.field}: ${message}`, [error]);
}
