import { Injectable } from '@nestjs/common';
import { RefundTopics } from '@townhall/contracts';
import { OutboxWriter, queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import type { TicketRow } from '../tickets/ticket-row.js';
import { REFUND_COLUMNS, REFUND_FROM, toRefund, type RefundRow } from './refund-row.js';

/**
 * The refund a cancelled event owes for a ticket paid on chain. The service holds no keys, so it
 * cannot move the host's tokens: it records what is owed (once per ticket: the ticket is the
 * refund's unique key) and announces it, and the host pays it with its own key (PayRefund).
 */
@Injectable()
export class RefundsOwed {
  constructor(private readonly outbox: OutboxWriter) {}

  /** In the caller's transaction; a ticket refunded already is left as it is. */
  async owe(manager: EntityManager, ticket: TicketRow, hostId: string): Promise<void> {
    if (!ticket.network || !ticket.asset || ticket.price === '0') return;
    const [inserted] = await queryRows<{ id: string }>(
      manager,
      `INSERT INTO ticketing.refunds (ticket_id, event_id, host_id, holder_id, amount, asset, network, created_at)
       VALUES ($1, $2, $3, $4, $5::numeric, $6, $7, now())
       ON CONFLICT (ticket_id) DO NOTHING RETURNING id`,
      [ticket.id, ticket.event_id, hostId, ticket.holder_id, ticket.price, ticket.asset, ticket.network],
    );
    if (!inserted) return;
    const [row] = await queryRows<RefundRow>(
      manager,
      `SELECT ${REFUND_COLUMNS} FROM ${REFUND_FROM} WHERE r.id = $1`,
      [inserted.id],
    );
    await this.outbox.announce(manager, [
      { type: RefundTopics.owed, subject: ticket.event_id, data: toRefund(row!) },
    ]);
  }
}
