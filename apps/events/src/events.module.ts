import { Module, type DynamicModule } from '@nestjs/common';
import type { Logger, OutboxRelay, ServiceClient } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { CalendarHandler } from './calendar/calendar.handler.js';
import { CalendarService } from './calendar/calendar.service.js';
import { OutboxWriter } from '@townhall/platform/service';
import { EventsHandler } from './events/events.handler.js';
import { EventsService } from './events/events.service.js';
import { SeriesHandler } from './series/series.handler.js';
import { SeriesService } from './series/series.service.js';
import { EventCounts } from './counts/event-counts.js';
import { DEFAULT_HOST_LIMITS, type HostLimits } from './events/host-limits.js';
import { PublishedRecordings } from './projection/published-recordings.js';
import { EventReminders } from './reminders/event-reminders.js';
import {
  CLOCK,
  HOST_LIMITS,
  LOGGER,
  OUTBOX_RELAY,
  PUBLIC_BASE_URL,
  REMINDER_LEAD_MINUTES,
  SERVICE_TIMEOUT_MS,
  SERVICES,
  type Clock,
} from './tokens.js';

/** The `source` of every CloudEvent this service publishes. */
export const SOURCE = 'townhall/events';

export interface EventsModuleOptions {
  dataSource: DataSource;
  relay: OutboxRelay;
  services: ServiceClient;
  logger: Logger;
  publicBaseUrl: string;
  reminderLeadMinutes: number;
  serviceTimeoutMs: number;
  /** What one agent may host at once; the config's defaults (50 events, 10 series) without it. */
  hostLimits?: HostLimits;
  clock?: Clock;
}

@Module({})
export class EventsModule {
  static register(options: EventsModuleOptions): DynamicModule {
    return {
      module: EventsModule,
      controllers: [EventsHandler, SeriesHandler, CalendarHandler],
      providers: [
        { provide: DataSource, useValue: options.dataSource },
        { provide: OUTBOX_RELAY, useValue: options.relay },
        { provide: LOGGER, useValue: options.logger },
        { provide: SERVICES, useValue: options.services },
        { provide: PUBLIC_BASE_URL, useValue: options.publicBaseUrl },
        { provide: REMINDER_LEAD_MINUTES, useValue: options.reminderLeadMinutes },
        { provide: SERVICE_TIMEOUT_MS, useValue: options.serviceTimeoutMs },
        { provide: HOST_LIMITS, useValue: options.hostLimits ?? DEFAULT_HOST_LIMITS },
        { provide: CLOCK, useValue: options.clock ?? (() => new Date()) },
        {
          provide: OutboxWriter,
          useValue: new OutboxWriter(options.dataSource, options.relay, { schema: 'events', source: SOURCE }),
        },
        EventsService,
        SeriesService,
        CalendarService,
        EventCounts,
        PublishedRecordings,
        EventReminders,
      ],
    };
  }
}
