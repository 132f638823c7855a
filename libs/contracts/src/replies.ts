import { z } from 'zod';
import type { Page } from './page.js';

/**
 * What services answer, as zod schemas: each reply type is `z.output` of its schema, so the type
 * and the shape the OpenAPI document shows have one source. Every schema registered here becomes
 * `#/components/schemas/<id>` in the document; references between them stay references.
 */
export const replySchemas = z.registry<{ id: string; description?: string }>();

/** Registers `schema` as the OpenAPI component `id`. */
export function reply<S extends z.ZodType>(schema: S, id: string, description?: string): S {
  replySchemas.add(schema, description === undefined ? { id } : { id, description });
  return schema;
}

/** An instant as services write it (`toISOString()`). */
export const InstantReply = z.iso.datetime().describe('RFC 3339 UTC instant');
/** An integer string of atomic units, negative for money out. */
export const AmountReply = z.string().regex(/^-?[0-9]+$/);

/** `{ items, nextCursor }`: pass `nextCursor` back as `cursor` for the next page. */
export function pageOf<S extends z.ZodType>(items: S, id: string): z.ZodType<Page<z.output<S>>> {
  return reply(
    z.object({
      items: z.array(items),
      nextCursor: z.string().nullable().describe('null on the last page'),
    }),
    `${id}Page`,
    `A page of ${id} items; pass \`nextCursor\` back as \`cursor\` for the next one`,
  );
}
