import {
  DomainServiceConfigSchema,
  deploymentChecks,
  publicBaseUrlRequired,
  PublicBaseUrlSchema,
} from '@townhall/platform/service';
import { z } from 'zod';

export const EventsConfigSchema = DomainServiceConfigSchema.extend({
  /** The gateway's public origin, for absolute links in calendar files (publicBaseUrlOf). */
  PUBLIC_BASE_URL: PublicBaseUrlSchema,
  /**
   * The most one-off events one agent hosts at once that are scheduled or live (not ended, not
   * cancelled); the next is refused with 409 event.limit_reached. A series' occurrences are
   * bounded by SERIES_PER_HOST_LIMIT instead.
   */
  EVENTS_PER_HOST_LIMIT: z.coerce.number().int().min(1).max(100_000).default(50),
  /** The most series one agent hosts at once that have not ended; the next is refused with 409 series.limit_reached. */
  SERIES_PER_HOST_LIMIT: z.coerce.number().int().min(1).max(10_000).default(10),
  /** How often series are extended to their horizon (occurrences are created ahead of time). */
  SERIES_EXTEND_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(15 * 60_000),
  /** How long before an event starts its host and ticket holders are reminded (`townhall.event.starting_soon`). */
  EVENT_REMINDER_LEAD_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .default(15),
  /** How often the events service looks for events to remind of (a reminder is at most this late). */
  EVENT_REMINDER_INTERVAL_MS: z.coerce.number().int().min(50).max(600_000).default(30_000),
})
  .superRefine(deploymentChecks)
  .superRefine(publicBaseUrlRequired);
export type EventsConfig = z.output<typeof EventsConfigSchema>;
