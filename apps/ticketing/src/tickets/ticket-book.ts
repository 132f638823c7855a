import { Injectable } from '@nestjs/common';
import {
  CursorKey,
  DomainError,
  cursorCodec,
  isUuid,
  type Page,
  type TicketReply,
  type TicketView,
} from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { z } from 'zod';
import { EventsProjection } from '../projection/events-projection.js';
import { TICKET_COLUMNS, toTicket, type TicketRow } from './ticket-row.js';
import { pageOfRows } from '../db/page-of-rows.js';

/** Tickets page by (created_at, id). */
const TICKET_CURSOR = cursorCodec(z.tuple([CursorKey.instant, CursorKey.uuid]));

/** Reading tickets: who holds what, an agent's tickets, an event's attendee list. */
@Injectable()
export class TicketBook {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventsProjection,
  ) {}

  /** The holder's live ticket for the event, if any (locked for update with `lock`). */
  async activeTicket(
    eventId: string,
    holder: string,
    options: { manager?: EntityManager; lock?: boolean } = {},
  ): Promise<TicketRow | undefined> {
    if (!isUuid(eventId)) return undefined;
    const [row] = await queryRows<TicketRow>(
      options.manager ?? this.dataSource.manager,
      `SELECT ${TICKET_COLUMNS} FROM ticketing.tickets
       WHERE event_id = $1 AND holder_id = $2 AND status = 'active' ${options.lock ? 'FOR UPDATE' : ''}`,
      [eventId, holder],
    );
    return row;
  }

  async byId(ticketId: string): Promise<TicketView> {
    const [row] = await queryRows<TicketRow>(
      this.dataSource,
      `SELECT ${TICKET_COLUMNS} FROM ticketing.tickets WHERE id = $1`,
      [ticketId],
    );
    if (!row) throw new Error(`expected ticket ${ticketId}`);
    return toTicket(row);
  }

  /** The ticket with this id, if there is one. */
  async findById(ticketId: string): Promise<TicketView | undefined> {
    if (!isUuid(ticketId)) return undefined;
    const [row] = await queryRows<TicketRow>(
      this.dataSource,
      `SELECT ${TICKET_COLUMNS} FROM ticketing.tickets WHERE id = $1`,
      [ticketId],
    );
    return row && toTicket(row);
  }

  /** The answer to an RSVP by an agent who holds a ticket already (after a unique violation, too). */
  /**
   * The agent's live ticket for an event: active, or pending while its payment settles (it holds
   * the seat). What an RSVP answers to an agent who has one, instead of charging it again.
   */
  async liveTicket(eventId: string, holder: string): Promise<TicketRow | undefined> {
    if (!isUuid(eventId)) return undefined;
    const [row] = await queryRows<TicketRow>(
      this.dataSource.manager,
      `SELECT ${TICKET_COLUMNS} FROM ticketing.tickets
       WHERE event_id = $1 AND holder_id = $2 AND status <> 'cancelled'`,
      [eventId, holder],
    );
    return row;
  }

  async alreadyHeld(eventId: string, holder: string): Promise<TicketReply> {
    const held = await this.liveTicket(eventId, holder);
    if (!held) throw new Error('expected a live ticket after a unique violation');
    return { ticket: toTicket(held), created: false, settlement: null };
  }

  async mine(caller: string, limit: number, cursor: string | undefined): Promise<Page<TicketView>> {
    return this.page('holder_id = $1', [caller], limit, cursor);
  }

  /** The attendee list: the host and moderators only. */
  async attendees(
    caller: string,
    requestId: string,
    eventId: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<Page<TicketView>> {
    const event = await this.events.ensure(eventId, caller, requestId);
    if (event.host_id !== caller && !event.moderators.includes(caller)) {
      throw new DomainError('role.forbidden', 'Only the host and moderators see the attendee list');
    }
    return this.page(`event_id = $1 AND status = 'active'`, [event.event_id], limit, cursor);
  }

  private async page(
    where: string,
    params: unknown[],
    limit: number,
    cursor: string | undefined,
  ): Promise<Page<TicketView>> {
    const after = cursor ? TICKET_CURSOR.decode(cursor) : null;
    const rows = await queryRows<TicketRow>(
      this.dataSource,
      `SELECT ${TICKET_COLUMNS} FROM ticketing.tickets WHERE ${where}
       ${after ? `AND (created_at, id) > ($${params.length + 1}::timestamptz, $${params.length + 2}::uuid)` : ''}
       ORDER BY created_at, id LIMIT ${limit + 1}`,
      after ? [...params, ...after] : params,
    );
    return pageOfRows(rows, limit, toTicket, (last) =>
      TICKET_CURSOR.encode([last.created_at.toISOString(), last.id]),
    );
  }
}
