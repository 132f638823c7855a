/** Injection tokens of the events service. */
export const OUTBOX_RELAY = Symbol('OutboxRelay');
export const CLOCK = Symbol('Clock');

/** The current time; injected so that tests can fix it. */
export type Clock = () => Date;
export const LOGGER = Symbol('Logger');
/** EVENT_REMINDER_LEAD_MINUTES: how long before its start an event is announced `starting_soon`. */
export const REMINDER_LEAD_MINUTES = Symbol('ReminderLeadMinutes');
/** The public origin (PUBLIC_BASE_URL), for absolute links such as calendar URLs. */
export const PUBLIC_BASE_URL = Symbol('PublicBaseUrl');
/** How the events service asks other services (ticketing decides capacity changes). */
export const SERVICES = Symbol('ServiceClient');
/**
 * SERVICE_TIMEOUT_MS: how long a caller waits for an answer; a PATCH that waited this long for
 * its turn behind others of the same event is refused (503), not run after its caller gave up.
 */
export const SERVICE_TIMEOUT_MS = Symbol('ServiceTimeoutMs');
/** EVENTS_PER_HOST_LIMIT and SERIES_PER_HOST_LIMIT: what one agent may host at once (events/host-limits.ts). */
export const HOST_LIMITS = Symbol('HostLimits');
