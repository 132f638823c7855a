import { Injectable } from '@nestjs/common';
import { AgentIdSchema, CursorKey, cursorCodec, type InviteView, type Page } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { pageOfRows } from '../db/page-of-rows.js';

/** A row of ticketing.invites, as the host sees it. */
export interface InviteRow {
  event_id: string;
  agent_id: string;
  invited_by: string;
  invited_at: Date;
}

export const INVITE_COLUMNS = 'event_id, agent_id, invited_by, invited_at';

export function toInvite(row: InviteRow): InviteView {
  return {
    eventId: row.event_id,
    agentId: row.agent_id,
    invitedBy: row.invited_by,
    invitedAt: row.invited_at.toISOString(),
  };
}

/** Invites page by (invited_at, agent_id): oldest first. */
const INVITE_CURSOR = cursorCodec(z.tuple([CursorKey.instant, AgentIdSchema]));

/** Reading an event's invites (the host's list). */
@Injectable()
export class InviteBook {
  constructor(private readonly dataSource: DataSource) {}

  async page(eventId: string, limit: number, cursor: string | undefined): Promise<Page<InviteView>> {
    const after = cursor ? INVITE_CURSOR.decode(cursor) : null;
    const rows = await queryRows<InviteRow>(
      this.dataSource,
      `SELECT ${INVITE_COLUMNS} FROM ticketing.invites WHERE event_id = $1
       ${after ? 'AND (invited_at, agent_id) > ($2::timestamptz, $3)' : ''}
       ORDER BY invited_at, agent_id LIMIT ${limit + 1}`,
      after ? [eventId, ...after] : [eventId],
    );
    return pageOfRows(rows, limit, toInvite, (last) =>
      INVITE_CURSOR.encode([last.invited_at.toISOString(), last.agent_id]),
    );
  }
}
