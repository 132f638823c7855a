import { BaseConfigSchema, DatabaseConfigSchema, deploymentChecks } from '@townhall/platform/service';
import { z } from 'zod';

export const EngagementConfigSchema = BaseConfigSchema.extend(DatabaseConfigSchema.shape)
  .extend({
    PROBE_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /** How often polls past their `closesAt` are closed (a poll closes at most this late). */
    POLL_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(1_000),
    /** Questions one agent may submit per event per minute (docs/product.md "Limits"). */
    QUESTIONS_PER_MINUTE: z.coerce.number().int().min(1).default(5),
    /** How often the outbox relay looks for unpublished domain events (it is also woken after each commit). */
    OUTBOX_POLL_INTERVAL_MS: z.coerce.number().int().min(10).default(500),
  })
  .superRefine(deploymentChecks);
export type EngagementConfig = z.output<typeof EngagementConfigSchema>;
