import {
  migrateSchema,
  openDataSource,
  type Logger,
  type ServiceDefinition,
} from '@townhall/platform/service';
import type { EventsConfig } from './config.js';
import { COUNT_SUBSCRIPTIONS, EventCounts } from './counts/event-counts.js';
import { createEventsDataSource, EVENTS_SCHEMA } from './data-source.js';
import { EventsModule } from './events.module.js';

/** The events service, whatever runs it (its own process, or standalone mode). */
export async function eventsService(config: EventsConfig, logger: Logger): Promise<ServiceDefinition> {
  const dataSource = await openDataSource(createEventsDataSource, config);
  return {
    name: 'events',
    dataSource,
    outbox: { schema: EVENTS_SCHEMA, pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS },
    serviceTimeoutMs: config.SERVICE_TIMEOUT_MS,
    module: ({ relay, services }) =>
      EventsModule.register({
        dataSource,
        relay,
        services,
        logger,
        publicBaseUrl: config.PUBLIC_BASE_URL,
        seriesExtendIntervalMs: config.SERIES_EXTEND_INTERVAL_MS,
      }),
    // Counts come from other services' domain events (durable: caught up after a restart).
    subscriptions: (app) => {
      const counts = app.get(EventCounts);
      return COUNT_SUBSCRIPTIONS.map((subscription) => ({
        ...subscription,
        handle: (event) => counts.handle(event),
      }));
    },
  };
}

/** Applies the events schema's pending migrations (what `migrate.js` runs); returns their names. */
export function migrateEvents(databaseUrl: string): Promise<string[]> {
  return migrateSchema(createEventsDataSource(databaseUrl, 1));
}

export { EventsConfigSchema, type EventsConfig } from './config.js';
