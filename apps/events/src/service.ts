import { domainService, publicBaseUrlOf, type DomainService } from '@townhall/platform/service';
import { EventsConfigSchema, type EventsConfig } from './config.js';
import { createEventsDataSource, EVENTS_SCHEMA } from './data-source.js';
import { EventsModule } from './events.module.js';

/** The events service, as its process, its migrate command, standalone mode and its service tests run it. */
export const events: DomainService<EventsConfig> = domainService({
  name: 'events',
  schema: EVENTS_SCHEMA,
  configSchema: EventsConfigSchema,
  dataSource: createEventsDataSource,
  module: (parts, config) =>
    EventsModule.register({
      ...parts,
      settings: {
        publicBaseUrl: publicBaseUrlOf(config),
        reminderLeadMinutes: config.EVENT_REMINDER_LEAD_MINUTES,
        serviceTimeoutMs: config.SERVICE_TIMEOUT_MS,
        hostLimits: { events: config.EVENTS_PER_HOST_LIMIT, series: config.SERIES_PER_HOST_LIMIT },
      },
    }),
});

export { EventsConfigSchema, type EventsConfig } from './config.js';
