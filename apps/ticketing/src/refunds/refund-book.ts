import { Inject, Injectable } from '@nestjs/common';
import { CursorKey, cursorCodec, type Page, type RefundView } from '@townhall/contracts';
import { queryRows, SETTINGS } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { FeePayer } from '../payments/fee-payer.js';
import { EventsProjection } from '../projection/events-projection.js';
import type { TicketingSettings } from '../settings.js';
import { REFUND_COLUMNS, REFUND_FROM, refundRequirements, toRefund, type RefundRow } from './refund-row.js';
import { pageOfRows } from '../db/page-of-rows.js';

/** Refunds page in the order they were owed. */
const REFUND_CURSOR = cursorCodec(z.tuple([CursorKey.bigint]));

/** Reading refunds: the host sees every refund of its event, with what to pay; an agent its own. */
@Injectable()
export class RefundBook {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventsProjection,
    private readonly feePayer: FeePayer,
    @Inject(SETTINGS) private readonly settings: TicketingSettings,
  ) {}

  async list(
    caller: string,
    requestId: string,
    eventId: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<Page<RefundView>> {
    const event = await this.events.ensure(eventId, caller, requestId);
    const host = event.host_id === caller;
    const [after] = cursor === undefined ? ['0'] : REFUND_CURSOR.decode(cursor);
    const rows = await queryRows<RefundRow>(
      this.dataSource,
      `SELECT ${REFUND_COLUMNS} FROM ${REFUND_FROM}
        WHERE r.event_id = $1 AND ($2::text IS NULL OR r.holder_id = $2) AND r.seq > $3::bigint
        ORDER BY r.seq LIMIT $4`,
      [event.event_id, host ? null : caller, after, limit + 1],
    );
    // What to sign, for the host, while a refund is owed: it needs the facilitator's fee payer.
    const feePayer =
      host && rows.slice(0, limit).some((row) => row.status === 'owed')
        ? await this.feePayer.current()
        : undefined;
    return pageOfRows(
      rows,
      limit,
      (row) =>
        toRefund(
          row,
          feePayer && row.status === 'owed' ? refundRequirements(this.settings, row, feePayer) : undefined,
        ),
      (last) => REFUND_CURSOR.encode([last.seq]),
    );
  }
}
