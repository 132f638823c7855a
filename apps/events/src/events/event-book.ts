import { Injectable } from '@nestjs/common';
import { DomainError, isUuid } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { EVENT_COLUMNS, type EventRow } from './event-row.js';

/** Reading one event: what a read, a PATCH, a transition, the role query and its calendar file start from. */
@Injectable()
export class EventBook {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The event as it is now (in `manager`'s transaction, if given); 404 `event.not_found` if there
   * is none.
   */
  async find(eventId: string, manager: EntityManager = this.dataSource.manager): Promise<EventRow> {
    // Not a uuid: no such event, rather than an error from Postgres's cast.
    const [row] = isUuid(eventId)
      ? await queryRows<EventRow>(manager, `SELECT ${EVENT_COLUMNS} FROM events.events WHERE id = $1`, [
          eventId,
        ])
      : [];
    if (!row) throw new DomainError('event.not_found', `No event ${eventId}`);
    return row;
  }
}
