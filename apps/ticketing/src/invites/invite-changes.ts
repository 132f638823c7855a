import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  InviteTopics,
  type InvitesAdded,
  type InviteView,
  type SignedMeta,
} from '@townhall/contracts';
import { CLOCK, type Clock, OutboxWriter, queryRows } from '@townhall/platform/service';
import { hostedEvent } from '../access/hosted-event.js';
import type { EventRow } from '../projection/event-row.js';
import { EventsProjection } from '../projection/events-projection.js';
import { lockSeats } from '../tickets/seats.js';
import { WaitlistSeats } from '../waitlist/waitlist-seats.js';
import { INVITE_COLUMNS, toInvite, type InviteRow } from './invite-book.js';

/**
 * The host's invites (docs/product.md "Who may come"). Adding is idempotent: an agent invited
 * before keeps its invite (and its `invitedAt`), and only the new ones are announced. A seat the
 * line could not give an agent the event did not admit goes to it once it is invited. Removing
 * deletes the invite; a ticket the agent holds is kept.
 */
@Injectable()
export class InviteChanges {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly events: EventsProjection,
    private readonly seats: WaitlistSeats,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The event, if the caller is its host; else 403 `role.forbidden`. */
  hostsEvent(meta: SignedMeta, eventId: string): Promise<EventRow> {
    return hostedEvent(this.events, meta, eventId, 'manages its invites');
  }

  async add(meta: SignedMeta, eventId: string, agentIds: readonly string[]): Promise<InvitesAdded> {
    const event = await this.hostsEvent(meta, eventId);
    return this.outbox.run(async (manager) => {
      const added = await queryRows<InviteRow>(
        manager,
        `INSERT INTO ticketing.invites (event_id, agent_id, invited_by, invited_at)
         SELECT $1, agent, $2, $3 FROM unnest($4::text[]) AS agent
         ON CONFLICT (event_id, agent_id) DO NOTHING
         RETURNING ${INVITE_COLUMNS}`,
        [event.event_id, meta.caller, this.clock(), agentIds],
      );
      const invites = await queryRows<InviteRow>(
        manager,
        `SELECT ${INVITE_COLUMNS} FROM ticketing.invites WHERE event_id = $1 AND agent_id = ANY ($2::text[])
          ORDER BY invited_at, agent_id`,
        [event.event_id, agentIds],
      );
      await this.outbox.announce(
        manager,
        added.map((row) => ({ type: InviteTopics.added, subject: row.event_id, data: toInvite(row) })),
      );
      if (added.length > 0) {
        await lockSeats(manager, event.event_id);
        await this.seats.fill(manager, event.event_id);
      }
      return { invites: invites.map(toInvite), added: added.length };
    });
  }

  async remove(meta: SignedMeta, eventId: string, agentId: string): Promise<InviteView> {
    const event = await this.hostsEvent(meta, eventId);
    return this.outbox.run(async (manager) => {
      const [removed] = await queryRows<InviteRow>(
        manager,
        `DELETE FROM ticketing.invites WHERE event_id = $1 AND agent_id = $2 RETURNING ${INVITE_COLUMNS}`,
        [event.event_id, agentId],
      );
      if (!removed) throw new DomainError('invite.not_found', 'This agent is not invited to this event');
      const invite = toInvite(removed);
      await this.outbox.announce(manager, [
        { type: InviteTopics.removed, subject: invite.eventId, data: invite },
      ]);
      return invite;
    });
  }
}
