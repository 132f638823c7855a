import { Inject, Injectable } from '@nestjs/common';
import type { CalendarFile } from '@townhall/contracts';
import { SETTINGS } from '@townhall/platform/service';
import { EventBook } from '../events/event-book.js';
import type { EventsSettings } from '../settings.js';
import { calendarEntry } from './calendar-entry.js';
import { renderCalendar } from './ics.js';

/** One event as an RFC 5545 file. */
@Injectable()
export class ExportEventCalendar {
  /** The public origin (PUBLIC_BASE_URL), for the entry's link. */
  private readonly baseUrl: string;

  constructor(
    private readonly events: EventBook,
    @Inject(SETTINGS) settings: EventsSettings,
  ) {
    this.baseUrl = settings.publicBaseUrl;
  }

  async export(eventId: string): Promise<CalendarFile> {
    const row = await this.events.find(eventId);
    const { baseUrl } = this;
    return {
      filename: `event-${row.id}.ics`,
      body: renderCalendar([calendarEntry(row, baseUrl)], { name: row.title, baseUrl }),
    };
  }
}
