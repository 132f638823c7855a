import { Injectable } from '@nestjs/common';
import {
  AgentIdSchema,
  CursorKey,
  cursorCodec,
  type AccessRequestView,
  type Page,
  type RequestStatus,
} from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { pageOfRows } from '../db/page-of-rows.js';

/** A row of ticketing.requests. */
export interface RequestRow {
  event_id: string;
  agent_id: string;
  tier_id: string | null;
  status: RequestStatus;
  hold_expires_at: Date | null;
  requested_at: Date;
  decided_at: Date | null;
  decided_by: string | null;
}

export const REQUEST_COLUMNS =
  'event_id, agent_id, tier_id, status, hold_expires_at, requested_at, decided_at, decided_by';

export function toRequest(row: RequestRow): AccessRequestView {
  return {
    eventId: row.event_id,
    agentId: row.agent_id,
    status: row.status,
    tierId: row.tier_id,
    holdExpiresAt: row.hold_expires_at?.toISOString() ?? null,
    requestedAt: row.requested_at.toISOString(),
    decidedAt: row.decided_at?.toISOString() ?? null,
    decidedBy: row.decided_by,
  };
}

/** Requests page by (requested_at, agent_id): oldest first. */
const REQUEST_CURSOR = cursorCodec(z.tuple([CursorKey.instant, AgentIdSchema]));

/** Reading an event's requests (the host's and moderators' list). */
@Injectable()
export class RequestBook {
  constructor(private readonly dataSource: DataSource) {}

  async page(
    eventId: string,
    status: RequestStatus | undefined,
    limit: number,
    cursor: string | undefined,
  ): Promise<Page<AccessRequestView>> {
    const after = cursor ? REQUEST_CURSOR.decode(cursor) : null;
    const params: unknown[] = [eventId, status ?? null];
    if (after) params.push(...after);
    const rows = await queryRows<RequestRow>(
      this.dataSource,
      `SELECT ${REQUEST_COLUMNS} FROM ticketing.requests
        WHERE event_id = $1 AND ($2::text IS NULL OR status = $2)
        ${after ? 'AND (requested_at, agent_id) > ($3::timestamptz, $4)' : ''}
        ORDER BY requested_at, agent_id LIMIT ${limit + 1}`,
      params,
    );
    return pageOfRows(rows, limit, toRequest, (last) =>
      REQUEST_CURSOR.encode([last.requested_at.toISOString(), last.agent_id]),
    );
  }
}
