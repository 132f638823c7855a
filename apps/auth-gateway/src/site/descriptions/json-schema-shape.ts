import { z } from 'zod';

/*
 * How the API documents (/openapi.json, /asyncapi.json) shape the JSON Schema zod gives them.
 */

/** Drops the bounds zod gives every integer (the safe-integer range): they say nothing to a reader. */
export function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(
        ([key, member]) =>
          !(key === 'minimum' && member === Number.MIN_SAFE_INTEGER) &&
          !(key === 'maximum' && member === Number.MAX_SAFE_INTEGER),
      )
      .map(([key, member]) => [key, tidy(member)]),
  );
}

/** Leaves objects open (no `additionalProperties: false`): a reply may gain fields. */
export function openObjects(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(openObjects);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, member]) => !(key === 'additionalProperties' && member === false))
      .map(([key, member]) => [key, openObjects(member)]),
  );
}

/** Schemas registered under their component ids (`replySchemas`, `busSchemas`, or one of both). */
export type ComponentRegistry = z.core.$ZodRegistry<{ id: string; description?: string }>;

/**
 * Every schema of `registry` as a component of a document: JSON Schema of `target` (each document's
 * dialect), references between them as `<refPrefix><id>`, objects left open and integers tidied.
 */
export function componentsOf(
  registry: ComponentRegistry,
  target: 'draft-7' | 'draft-2020-12',
  refPrefix: string,
): Array<[string, Record<string, unknown>]> {
  const { schemas } = z.toJSONSchema(registry, {
    target,
    io: 'output',
    unrepresentable: 'any',
    uri: (id) => `${refPrefix}${id}`,
  }) as { schemas: Record<string, Record<string, unknown>> };
  return Object.entries(schemas).map(([id, schema]) => {
    const { $schema: _dialect, $id: _id, ...rest } = schema;
    return [id, tidy(openObjects(rest)) as Record<string, unknown>];
  });
}
