import type { HostLimits } from './events/host-limits.js';

/** The events service's settings (SETTINGS), read from its configuration once. */
export interface EventsSettings {
  /** PUBLIC_BASE_URL: the public origin, for absolute links such as calendar URLs. */
  publicBaseUrl: string;
  /** EVENT_REMINDER_LEAD_MINUTES: how long before its start an event is announced `starting_soon`. */
  reminderLeadMinutes: number;
  /**
   * SERVICE_TIMEOUT_MS: how long a caller waits for an answer; a PATCH that waited this long for
   * its turn behind others of the same event is refused (503), not run after its caller gave up.
   */
  serviceTimeoutMs: number;
  /**
   * EVENTS_PER_HOST_LIMIT and SERIES_PER_HOST_LIMIT: what one agent may host at once
   * (events/host-limits.ts).
   */
  hostLimits: HostLimits;
}
