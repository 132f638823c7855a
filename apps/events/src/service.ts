import {
  domainService,
  openDataSource,
  publicBaseUrlOf,
  type DomainService,
  type Logger,
  type ServiceDefinition,
} from '@townhall/platform/service';
import { EventsConfigSchema, type EventsConfig } from './config.js';
import { createEventsDataSource, EVENTS_SCHEMA } from './data-source.js';
import { EventsModule } from './events.module.js';

/** The events service, whatever runs it (its own process, or standalone mode). */
async function defineEvents(
  config: EventsConfig,
  logger: Logger,
): Promise<Omit<ServiceDefinition, 'name' | 'config'>> {
  const dataSource = await openDataSource(createEventsDataSource, config);
  return {
    dataSource,
    outbox: {
      schema: EVENTS_SCHEMA,
      pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
      // off only to test recovery: domain events then wait in the outbox
      held: config.OUTBOX_RELAY === 'off',
    },
    serviceTimeoutMs: config.SERVICE_TIMEOUT_MS,
    module: ({ relay, services }) =>
      EventsModule.register({
        dataSource,
        relay,
        services,
        logger,
        publicBaseUrl: publicBaseUrlOf(config),
        reminderLeadMinutes: config.EVENT_REMINDER_LEAD_MINUTES,
        serviceTimeoutMs: config.SERVICE_TIMEOUT_MS,
        hostLimits: { events: config.EVENTS_PER_HOST_LIMIT, series: config.SERIES_PER_HOST_LIMIT },
      }),
  };
}

/** The events service, as its process, its migrate command, standalone mode and its service tests run it. */
export const events: DomainService<EventsConfig> = domainService({
  name: 'events',
  schema: EVENTS_SCHEMA,
  configSchema: EventsConfigSchema,
  define: defineEvents,
  dataSource: createEventsDataSource,
});

export { EventsConfigSchema, type EventsConfig } from './config.js';
