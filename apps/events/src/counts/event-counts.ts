import { Injectable } from '@nestjs/common';
import { EngagementTopics, TicketTopics, type CloudEvent, type TicketView } from '@townhall/contracts';
import { OutboxWriter, claimEventsOnce, OnDomainEvent, queryRows } from '@townhall/platform/service';

type CountColumn = 'tickets_sold' | 'question_count' | 'poll_count';

/** How long a batch of counts waits for more events after its first: counts lag by that much at most more. */
const GATHER_MS = 20;

/** A change of one count of one event (for tickets, of one tier). */
interface Change {
  eventId: string;
  column: CountColumn;
  tierId?: string;
  delta: number;
}

/** $1 the event, $2 the change, $3 the tier (tickets only). Tickets sold never go below zero. */
const UPDATES: Record<CountColumn, string> = {
  tickets_sold: `UPDATE events.events
    SET tickets_sold = jsonb_set(tickets_sold, ARRAY[$3::text],
      to_jsonb(GREATEST(COALESCE((tickets_sold->>$3)::int, 0) + $2, 0)))
    WHERE id = $1`,
  question_count: 'UPDATE events.events SET question_count = question_count + $2 WHERE id = $1',
  poll_count: 'UPDATE events.events SET poll_count = poll_count + $2 WHERE id = $1',
};

/**
 * Keeps an event's `counts` (tickets sold per tier, questions, polls) from the domain events
 * of the services that own them: a projection for readers, and for PATCH's capacity check.
 * Each domain event is counted once (claimEventsOnce in the same transaction).
 */
@Injectable()
export class EventCounts {
  constructor(private readonly outbox: OutboxWriter) {}

  /**
   * What has arrived, in one transaction: the events not counted before are claimed, their
   * changes summed per event (and tier), and each event's row updated once. Ticket sales from
   * ticketing, questions and polls from engagement, each on a durable consumer of its own (NATS
   * 2.9 filters one subject per consumer), caught up after a restart.
   */
  @OnDomainEvent('townhall.ticket.>', { durable: 'events-ticket-counts', batch: true, gatherMs: GATHER_MS })
  @OnDomainEvent('townhall.question.>', {
    durable: 'events-question-counts',
    batch: true,
    gatherMs: GATHER_MS,
  })
  @OnDomainEvent('townhall.poll.>', { durable: 'events-poll-counts', batch: true, gatherMs: GATHER_MS })
  async count(events: CloudEvent[]): Promise<void> {
    const counted = events.filter((event) => this.changeOf(event) !== undefined);
    if (counted.length === 0) return;
    await this.outbox.run(async (manager) => {
      const fresh = await claimEventsOnce(
        manager,
        'events',
        'events-counts',
        counted.map((event) => event.id),
      );
      const sums = new Map<string, Change>();
      for (const event of counted) {
        if (!fresh.delete(event.id)) continue; // counted before, or twice in this batch
        const change = this.changeOf(event)!;
        const key = `${change.eventId}/${change.column}/${change.tierId ?? ''}`;
        const sum = sums.get(key);
        if (sum) sum.delta += change.delta;
        else sums.set(key, { ...change });
      }
      for (const change of sums.values()) {
        if (change.delta === 0) continue;
        const params = change.tierId === undefined ? [] : [change.tierId];
        await queryRows(manager, UPDATES[change.column], [change.eventId, change.delta, ...params]);
      }
    });
  }

  private changeOf(event: CloudEvent): Change | undefined {
    switch (event.type) {
      case TicketTopics.issued:
      case TicketTopics.cancelled: {
        const ticket = event.data as TicketView;
        return {
          eventId: ticket.eventId,
          column: 'tickets_sold',
          tierId: ticket.tierId,
          delta: event.type === TicketTopics.issued ? 1 : -1,
        };
      }
      case EngagementTopics.questionSubmitted:
        return { eventId: event.subject, column: 'question_count', delta: 1 };
      case EngagementTopics.pollOpened:
        return { eventId: event.subject, column: 'poll_count', delta: 1 };
      default:
        return undefined;
    }
  }
}
