/**
 * The directory service's settings (SETTINGS): none of its own. Its configuration only places the
 * service (database, NATS, outbox relay), which its definition reads, so no use case injects it.
 */
export type DirectorySettings = Record<string, never>;
