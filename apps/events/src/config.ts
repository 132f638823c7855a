import { BaseConfigSchema, DatabaseConfigSchema } from '@townhall/platform/service';
import { z } from 'zod';

export const EventsConfigSchema = BaseConfigSchema.extend(DatabaseConfigSchema.shape).extend({
  PROBE_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** The gateway's public origin, for absolute links in calendar files. */
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .transform((value) => value.replace(/\/+$/, ''))
    .default('http://localhost:3000'),
  /** How often series are extended to their horizon (occurrences are created ahead of time). */
  SERIES_EXTEND_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(15 * 60_000),
  /** How often the outbox relay looks for unpublished domain events (it is also woken after each commit). */
  OUTBOX_POLL_INTERVAL_MS: z.coerce.number().int().min(10).default(500),
  /** Off only to test recovery: domain events then wait in the outbox. */
  OUTBOX_RELAY: z.enum(['on', 'off']).default('on'),
});
export type EventsConfig = z.output<typeof EventsConfigSchema>;
