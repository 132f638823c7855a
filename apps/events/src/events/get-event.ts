import { Injectable } from '@nestjs/common';
import type { EventView } from '@townhall/contracts';
import { EventBook } from './event-book.js';
import { toEventView } from './event-row.js';

/** One event, as anyone may read it. */
@Injectable()
export class GetEvent {
  constructor(private readonly book: EventBook) {}

  async get(eventId: string): Promise<EventView> {
    return toEventView(await this.book.find(eventId));
  }
}
