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
