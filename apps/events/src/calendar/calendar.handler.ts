import { Controller } from '@nestjs/common';
import { Events, Series, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { ExportEventCalendar } from './export-event-calendar.js';
import { ExportSeriesCalendar } from './export-series-calendar.js';

/** Calendar files' message handlers: an event's and a series'. */
@Controller()
export class CalendarHandler {
  constructor(
    private readonly eventFiles: ExportEventCalendar,
    private readonly seriesFiles: ExportSeriesCalendar,
  ) {}

  @Handle(Events.calendar)
  event(data: ParsedRequestOf<typeof Events.calendar>) {
    return this.eventFiles.export(data.eventId);
  }

  @Handle(Series.calendar)
  series(data: ParsedRequestOf<typeof Series.calendar>) {
    return this.seriesFiles.export(data.seriesId, data.ifNoneMatch);
  }
}
