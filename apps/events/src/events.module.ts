import { Module, type DynamicModule } from '@nestjs/common';
import { domainModule, type DomainModuleOptions } from '@townhall/platform/service';
import { EVENTS_SCHEMA } from './data-source.js';
import type { EventsSettings } from './settings.js';
import { CalendarHandler } from './calendar/calendar.handler.js';
import { ExportEventCalendar } from './calendar/export-event-calendar.js';
import { ExportSeriesCalendar } from './calendar/export-series-calendar.js';
import { EventCounts } from './counts/event-counts.js';
import { CreateEvent } from './events/create-event.js';
import { EventBook } from './events/event-book.js';
import { EventsHandler } from './events/events.handler.js';
import { GetEventAccess } from './events/get-event-access.js';
import { GetEvent } from './events/get-event.js';
import { ListEvents } from './events/list-events.js';
import { TransitionEvent } from './events/transition-event.js';
import { UpdateEvent } from './events/update-event.js';
import { PublishedRecordings } from './projection/published-recordings.js';
import { EventReminders } from './reminders/event-reminders.js';
import { CreateSeries } from './series/create-series.js';
import { EndSeries } from './series/end-series.js';
import { ExtendSeries } from './series/extend-series.js';
import { FollowSeries } from './series/follow-series.js';
import { GetSeries } from './series/get-series.js';
import { ListSeries } from './series/list-series.js';
import { SeriesBook } from './series/series-book.js';
import { SeriesHandler } from './series/series.handler.js';

/** The `source` of every CloudEvent this service publishes. */
export const SOURCE = 'townhall/events';

export type EventsModuleOptions = DomainModuleOptions<EventsSettings>;

/** What the module is made of (libs/platform domainModule). */
const LAYOUT = {
  schema: EVENTS_SCHEMA,
  source: SOURCE,
  handlers: [EventsHandler, SeriesHandler, CalendarHandler],
  useCases: [
    CreateEvent,
    ListEvents,
    GetEvent,
    UpdateEvent,
    TransitionEvent,
    GetEventAccess,
    CreateSeries,
    ListSeries,
    GetSeries,
    FollowSeries,
    EndSeries,
    ExportEventCalendar,
    ExportSeriesCalendar,
  ],
  // Besides books and consumers: the series' extension and the reminders, periodic jobs (@Periodic)
  // rather than operations anyone asks for.
  parts: [EventBook, SeriesBook, EventCounts, PublishedRecordings, EventReminders, ExtendSeries],
};

@Module({})
export class EventsModule {
  static register(options: EventsModuleOptions): DynamicModule {
    return domainModule(EventsModule, options, LAYOUT);
  }
}
