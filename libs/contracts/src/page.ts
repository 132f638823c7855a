import { z } from 'zod';

/** Every list answers `{ items, nextCursor }`; pass nextCursor back as `cursor` for the next page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export const PagingSchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(512).optional(),
});

/** A position in a per-event sequence (`?after=`): an `integer` column, so at most 2^31-1. */
export const SequenceQuerySchema = z.coerce.number().int().min(0).max(2_147_483_647);
