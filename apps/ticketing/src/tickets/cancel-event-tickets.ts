import { Inject, Injectable } from '@nestjs/common';
import { TicketTopics, type EventView } from '@townhall/contracts';
import { LOGGER, type Logger, OutboxWriter, queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import { LedgerBook } from '../ledger/ledger-book.js';
import { RefundsOwed } from '../refunds/refunds-owed.js';
import { TICKET_COLUMNS, toTicket, type TicketRow } from './ticket-row.js';

/** A cancelled event: every ticket cancelled, each paid one refunded in full (once: the caller claims the domain event). */
@Injectable()
export class CancelEventTickets {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly ledger: LedgerBook,
    private readonly refunds: RefundsOwed,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async cancel(manager: EntityManager, view: EventView): Promise<void> {
    const live = await queryRows<TicketRow>(
      manager,
      `SELECT ${TICKET_COLUMNS} FROM ticketing.tickets WHERE event_id = $1 AND status <> 'cancelled' FOR UPDATE`,
      [view.id],
    );
    const cancelled = await queryRows<TicketRow>(
      manager,
      `UPDATE ticketing.tickets SET status = 'cancelled', cancelled_at = now()
       WHERE event_id = $1 AND status <> 'cancelled' RETURNING ${TICKET_COLUMNS}`,
      [view.id],
    );
    // A pending ticket (an http settlement in flight) was never issued: no refund, no announcement.
    const issued = new Set(live.filter((row) => row.status === 'active').map((row) => row.id));
    const refunded = cancelled.filter((row) => issued.has(row.id));
    for (const row of refunded) {
      // Paid on chain: the host's tokens cannot be moved here, so the refund is owed, for the
      // host to pay with its own key.
      if (row.network) await this.refunds.owe(manager, row, view.hostId);
      else if (row.price !== '0' && row.asset) {
        await this.ledger.transfer(manager, {
          type: 'EVENT_TICKET_REFUND',
          from: view.hostId,
          to: row.holder_id,
          amount: row.price,
          asset: row.asset,
          eventId: view.id,
          ticketId: row.id,
          requireFunds: false,
        });
      }
    }
    await this.outbox.announce(
      manager,
      refunded.map((row) => ({ type: TicketTopics.cancelled, subject: view.id, data: toTicket(row) })),
    );
    this.logger.info(
      { eventId: view.id, tickets: cancelled.length },
      'event cancelled: tickets cancelled and refunded',
    );
  }
}
