import { Injectable } from '@nestjs/common';
import { CursorKey, cursorCodec, isUuid, type Page, type WaitlistEntryView } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { z } from 'zod';
import { WAITLIST_ENTRY, type WaitlistEntryRow } from '../db/functions.js';
import { pageOfRows } from '../db/page-of-rows.js';

/** An agent's entries page in the order it joined (seq). */
const WAITLIST_CURSOR = cursorCodec(z.tuple([CursorKey.bigint]));

/** Reading the waitlist: an agent's live entry for an event, and all of its entries. */
@Injectable()
export class WaitlistBook {
  constructor(private readonly dataSource: DataSource) {}

  /** The agent's entry still in line for the event (waiting or offered), if any. */
  async liveEntry(
    eventId: string,
    agentId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<WaitlistEntryView | undefined> {
    if (!isUuid(eventId)) return undefined;
    const [row] = await queryRows<WaitlistEntryRow>(
      manager,
      `SELECT ${WAITLIST_ENTRY} FROM ticketing.waitlist w
        WHERE w.event_id = $1 AND w.agent_id = $2 AND w.status IN ('waiting', 'offered')`,
      [eventId, agentId],
    );
    return row?.entry;
  }

  async byId(manager: EntityManager, id: string): Promise<WaitlistEntryView> {
    const [row] = await queryRows<WaitlistEntryRow>(
      manager,
      `SELECT ${WAITLIST_ENTRY} FROM ticketing.waitlist w WHERE w.id = $1`,
      [id],
    );
    if (!row) throw new Error(`expected waitlist entry ${id}`);
    return row.entry;
  }

  async mine(caller: string, limit: number, cursor: string | undefined): Promise<Page<WaitlistEntryView>> {
    const after = cursor ? WAITLIST_CURSOR.decode(cursor)[0] : '0';
    const rows = await queryRows<WaitlistEntryRow & { seq: string }>(
      this.dataSource,
      `SELECT ${WAITLIST_ENTRY}, w.seq::text AS seq FROM ticketing.waitlist w
        WHERE w.agent_id = $1 AND w.seq > $2::bigint ORDER BY w.seq LIMIT $3`,
      [caller, after, limit + 1],
    );
    return pageOfRows(
      rows,
      limit,
      (row) => row.entry,
      (last) => WAITLIST_CURSOR.encode([last.seq]),
    );
  }
}
