import fc from 'fast-check';
import type { JsonSchema } from './openapi-operations.js';

/**
 * Valid-ish values for a JSON Schema of the OpenAPI document: the right shape, often the right
 * content, so that a request gets past the gateway's checks and into the services some of the
 * time. A member can be given a generator of its own by name (`hint`): real fixture ids, time
 * zones, recurrence rules, which no schema says enough about.
 */
export type SchemaHint = (name: string, schema: JsonSchema) => fc.Arbitrary<unknown> | undefined;

const MAX_DEPTH = 8;
const SHORT_STRING = 30;
const SHORT_ARRAY = 4;
const HOUR_MS = 3_600_000;

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An RFC 3339 instant between one hour and sixty days from now, as the service expects one. */
export function nearFutureInstant(): fc.Arbitrary<string> {
  return fc
    .integer({ min: 1, max: 60 * 24 })
    .map((hours) => new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS + hours * HOUR_MS).toISOString());
}

function text(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const max = Math.max(minLength, Math.min(maxLength, SHORT_STRING));
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength, maxLength: max, unit: 'grapheme-ascii' }) },
    { weight: 1, arbitrary: fc.string({ minLength, maxLength: max, unit: 'grapheme' }) },
  );
}

function matching(pattern: string, minLength: number, maxLength: number): fc.Arbitrary<string> {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
    return fc
      .stringMatching(regex)
      .filter((value) => value.length >= minLength && value.length <= maxLength && regex.test(value));
  } catch {
    return text(minLength, maxLength);
  }
}

function numberOf(schema: JsonSchema, key: string): number | undefined {
  const value = schema[key];
  return typeof value === 'number' ? value : undefined;
}

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<unknown> {
  const minLength = numberOf(schema, 'minLength') ?? 0;
  const maxLength = numberOf(schema, 'maxLength') ?? 200;
  if (schema['format'] === 'date-time') return nearFutureInstant();
  if (schema['format'] === 'uri') {
    // Not fc.webUrl(): biased, it can take a second for one value.
    return fc.oneof(
      fc.constantFrom('https://example.com/recording.mp4', 'http://127.0.0.1/x', 'mailto:a@b.c', 'ftp://x/y'),
      fc.stringMatching(/^[a-z0-9-]{1,20}$/).map((path) => `https://example.com/${path}`),
    );
  }
  if (typeof schema['pattern'] === 'string') return matching(schema['pattern'], minLength, maxLength);
  return text(minLength, maxLength);
}

function integerArbitrary(schema: JsonSchema): fc.Arbitrary<unknown> {
  const min = numberOf(schema, 'minimum') ?? -1000;
  const max = numberOf(schema, 'maximum') ?? 1000;
  // Mostly small values (what real clients send), sometimes the edges of the declared range.
  return fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min, max: Math.min(max, Math.max(min, 0) + 100) }) },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
  );
}

function objectArbitrary(schema: JsonSchema, hint: SchemaHint, depth: number): fc.Arbitrary<unknown> {
  const properties = isSchema(schema['properties']) ? schema['properties'] : {};
  const required = Array.isArray(schema['required']) ? (schema['required'] as string[]) : [];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, member] of Object.entries(properties)) {
    if (isSchema(member)) model[name] = schemaArbitrary(member, hint, name, depth + 1);
  }
  const record = fc.record(model, { requiredKeys: required.filter((name) => name in model) });
  if (!('startsAt' in model && 'endsAt' in model)) return record;
  // startsAt < endsAt most of the time, so that the request reaches more than the first check.
  return fc.tuple(record, fc.integer({ min: 0, max: 4 })).map(([value, coin]) => {
    const { startsAt } = value as { startsAt?: unknown };
    if (coin === 0 || typeof startsAt !== 'string' || Number.isNaN(Date.parse(startsAt))) return value;
    return { ...value, endsAt: new Date(Date.parse(startsAt) + coin * HOUR_MS).toISOString() };
  });
}

const built = new WeakMap<SchemaHint, WeakMap<JsonSchema, Map<string, fc.Arbitrary<unknown>>>>();

/** A generator for values of `schema`; `name` is the member it is for, if any. Built once per schema. */
export function schemaArbitrary(
  schema: JsonSchema,
  hint: SchemaHint,
  name?: string,
  depth = 0,
): fc.Arbitrary<unknown> {
  let bySchema = built.get(hint);
  if (!bySchema) built.set(hint, (bySchema = new WeakMap()));
  let byName = bySchema.get(schema);
  if (!byName) bySchema.set(schema, (byName = new Map()));
  const key = `${name ?? ''}/${depth}`;
  let arbitrary = byName.get(key);
  if (!arbitrary) byName.set(key, (arbitrary = buildArbitrary(schema, hint, name, depth)));
  return arbitrary;
}

function buildArbitrary(
  schema: JsonSchema,
  hint: SchemaHint,
  name: string | undefined,
  depth: number,
): fc.Arbitrary<unknown> {
  if (name !== undefined) {
    const hinted = hint(name, schema);
    if (hinted) return hinted;
  }
  if (depth > MAX_DEPTH) return fc.constant(null);
  if ('const' in schema) return fc.constant(schema['const']);
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return fc.constantFrom(...schema['enum']);
  const branches = (schema['oneOf'] ?? schema['anyOf']) as unknown;
  if (Array.isArray(branches) && branches.length > 0) {
    return fc.oneof(
      ...branches.filter(isSchema).map((branch) => schemaArbitrary(branch, hint, name, depth + 1)),
    );
  }
  if (Array.isArray(schema['allOf'])) {
    const merged = (schema['allOf'] as unknown[]).filter(isSchema).reduce<JsonSchema>(
      (all, part) => ({
        ...all,
        ...part,
        properties: { ...(all['properties'] as object), ...(part['properties'] as object) },
        required: [...((all['required'] as string[]) ?? []), ...((part['required'] as string[]) ?? [])],
      }),
      {},
    );
    return schemaArbitrary(merged, hint, name, depth + 1);
  }
  const type = Array.isArray(schema['type']) ? schema['type'][0] : schema['type'];
  switch (type) {
    case 'object':
      return objectArbitrary(schema, hint, depth);
    case 'array': {
      const items = isSchema(schema['items']) ? schema['items'] : {};
      const minLength = numberOf(schema, 'minItems') ?? 0;
      const maxLength = Math.max(
        minLength,
        Math.min(numberOf(schema, 'maxItems') ?? SHORT_ARRAY, SHORT_ARRAY),
      );
      return fc.array(schemaArbitrary(items, hint, undefined, depth + 1), { minLength, maxLength });
    }
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return integerArbitrary(schema);
    case 'number':
      return fc.double({
        min: numberOf(schema, 'minimum') ?? -1e6,
        max: numberOf(schema, 'maximum') ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return 'default' in schema ? fc.constant(schema['default']) : fc.jsonValue({ maxDepth: 2 });
  }
}
