import { Controller } from '@nestjs/common';
import { Events, Series, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { CalendarService } from './calendar.service.js';

@Controller()
export class CalendarHandler {
  constructor(private readonly calendar: CalendarService) {}

  @Handle(Events.calendar)
  event(data: ParsedRequestOf<typeof Events.calendar>) {
    return this.calendar.event(data.eventId);
  }

  @Handle(Series.calendar)
  series(data: ParsedRequestOf<typeof Series.calendar>) {
    return this.calendar.seriesCalendar(data.seriesId, data.ifNoneMatch);
  }
}
