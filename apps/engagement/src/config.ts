import { deploymentChecks, DomainServiceConfigSchema } from '@townhall/platform/service';
import { z } from 'zod';

export const EngagementConfigSchema = DomainServiceConfigSchema.extend({
  /** How often polls past their `closesAt` are closed (a poll closes at most this late). */
  POLL_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(1_000),
  /** Questions one agent may submit per event per minute (docs/product.md "Limits"). */
  QUESTIONS_PER_MINUTE: z.coerce.number().int().min(1).default(5),
}).superRefine(deploymentChecks);
export type EngagementConfig = z.output<typeof EngagementConfigSchema>;
