import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

// Arguments: what a model fills in. Ids are opaque strings; the server judges them (404, 400).
export const Id = z.string().min(1).max(100);
export const EventId = Id.describe('The event id (from events_list or event_create)');
export const Cursor = z.string().min(1).max(2000).describe('nextCursor of the previous page');
export const Instant = z
  .string()
  .min(1)
  .max(64)
  .describe('RFC 3339 with an offset, e.g. 2026-12-01T18:00:00Z');
export const Amount = z
  .string()
  .regex(/^[0-9]{1,30}$/, 'an integer string of atomic units')
  .describe('Atomic units (USDC has 6 decimals: 2500000 is 2.50 USDC)');

export const Page = { nextCursor: z.string().optional().describe('Pass as `cursor` for the next page') };
export const next = (cursor: string | null) => (cursor === null ? {} : { nextCursor: cursor });

/** Runs a tool body, its refusals turned into tool errors (tool-results.ts `calling`). */
export type Run = (tool: () => Promise<CallToolResult>) => Promise<CallToolResult>;
