import { BaseConfigSchema, DatabaseConfigSchema, deploymentChecks } from '@townhall/platform/service';
import { z } from 'zod';

export const DirectoryConfigSchema = BaseConfigSchema.extend(DatabaseConfigSchema.shape)
  .extend({
    /** Port of the probe server (/healthz, /readyz); unset: none. */
    PROBE_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /** How often the outbox relay looks for unpublished domain events (it is also woken after each commit). */
    OUTBOX_POLL_INTERVAL_MS: z.coerce.number().int().min(10).default(500),
    /** Off only to test recovery: domain events then wait in the outbox. */
    OUTBOX_RELAY: z.enum(['on', 'off']).default('on'),
  })
  .superRefine(deploymentChecks);
export type DirectoryConfig = ReturnType<typeof DirectoryConfigSchema.parse>;
