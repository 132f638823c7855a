import { z } from 'zod';
import { AgentIdSchema } from './agent-id.js';

// What an event's fields and a series' template (each occurrence's fields) bound alike. Internal
// to the contracts: the index does not export this module.

/** An event lasts at most 31 days, so nothing inside one is longer. */
export const MAX_MINUTES = 31 * 24 * 60;

/** Moderators or speakers: at most 50 agents, each once. */
export const AgentList = z
  .array(AgentIdSchema)
  .max(50)
  .transform((ids) => [...new Set(ids)]);
