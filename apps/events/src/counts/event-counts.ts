import { Injectable } from '@nestjs/common';
import { EngagementTopics, TicketTopics, type CloudEvent, type TicketView } from '@townhall/contracts';
import { freshEventsCte, OutboxWriter, OnDomainEvent, preparedStatement } from '@townhall/platform/service';
import { DataSource } from 'typeorm';

type CountColumn = 'tickets_sold' | 'question_count' | 'poll_count';

/** How long a batch of counts waits for more events after its first: counts lag by that much at most more. */
const GATHER_MS = 100;

/** A change of one count of one event (for tickets, of one tier). */
interface Change {
  eventId: string;
  column: CountColumn;
  tierId?: string;
  delta: number;
}

/**
 * A batch of counted domain events in one statement, a transaction of its own: the events not
 * counted before are claimed (freshEventsCte; one twice in the batch is one), their changes summed
 * per event, column and tier, and each event's row updated once. $1 the domain events' ids, and for each its event,
 * column, tier ('' when none) and change. Tickets sold never go below zero.
 */
const COUNT_BATCH = `${freshEventsCte('events', 'events-counts')}, sums AS (
  SELECT c.event_id, c.column_name, c.tier_id, sum(c.delta)::int AS delta
    FROM (SELECT DISTINCT ON (id) *
            FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::int[])
                 AS t(id, event_id, column_name, tier_id, delta)) AS c
    JOIN fresh ON fresh.event_id = c.id
   GROUP BY c.event_id, c.column_name, c.tier_id
  HAVING sum(c.delta) <> 0
), per_event AS (
  SELECT event_id,
         COALESCE(sum(delta) FILTER (WHERE column_name = 'question_count'), 0)::int AS questions,
         COALESCE(sum(delta) FILTER (WHERE column_name = 'poll_count'), 0)::int AS polls,
         jsonb_object_agg(tier_id, delta) FILTER (WHERE column_name = 'tickets_sold') AS tiers
    FROM sums GROUP BY event_id
)
UPDATE events.events e
   SET question_count = e.question_count + p.questions,
       poll_count = e.poll_count + p.polls,
       tickets_sold = CASE WHEN p.tiers IS NULL THEN e.tickets_sold ELSE e.tickets_sold || (
         SELECT jsonb_object_agg(t.key, GREATEST(COALESCE((e.tickets_sold->>t.key)::int, 0) + t.value::int, 0))
           FROM jsonb_each_text(p.tiers) AS t) END
  FROM per_event p
 WHERE e.id = p.event_id`;

/**
 * Keeps an event's `counts` (tickets sold per tier, questions, polls) from the domain events
 * of the services that own them: a projection for readers, and for PATCH's capacity check.
 * Each domain event is counted once (processed_events, in the same statement).
 */
@Injectable()
export class EventCounts {
  private readonly countBatch: (values: unknown[]) => Promise<unknown[]>;

  constructor(
    dataSource: DataSource,
    private readonly outbox: OutboxWriter,
  ) {
    this.countBatch = preparedStatement(dataSource, 'events.count_batch', COUNT_BATCH);
  }

  /**
   * What has arrived, in one statement (COUNT_BATCH). Ticket sales from ticketing, questions and
   * polls from engagement, each on a durable consumer of its own (NATS 2.9 filters one subject
   * per consumer), caught up after a restart.
   */
  @OnDomainEvent('townhall.ticket.>', { durable: 'events-ticket-counts', batch: true, gatherMs: GATHER_MS })
  @OnDomainEvent('townhall.question.>', {
    durable: 'events-question-counts',
    batch: true,
    gatherMs: GATHER_MS,
  })
  @OnDomainEvent('townhall.poll.>', { durable: 'events-poll-counts', batch: true, gatherMs: GATHER_MS })
  async count(events: CloudEvent[]): Promise<void> {
    const counted = events.flatMap((event) => {
      const change = this.changeOf(event);
      return change ? [{ id: event.id, ...change }] : [];
    });
    if (counted.length === 0) return;
    // Retried as every statement is when Postgres picks it as a deadlock victim; announces nothing.
    await this.outbox.runStatement(
      () =>
        this.countBatch([
          counted.map((change) => change.id),
          counted.map((change) => change.eventId),
          counted.map((change) => change.column),
          counted.map((change) => change.tierId ?? ''),
          counted.map((change) => change.delta),
        ]),
      { committed: () => [] },
    );
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
