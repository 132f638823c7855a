import { Injectable } from '@nestjs/common';
import {
  EngagementTopics,
  TicketTopics,
  type DomainEvent,
  type DomainEventOf,
  type DomainEventType,
} from '@townhall/contracts';
import { freshEventsCte, OutboxWriter, OnDomainEvent, preparedStatement } from '@townhall/platform/service';
import { DataSource } from 'typeorm';

type CountColumn = 'tickets_sold' | 'question_count' | 'poll_count';

/** How long a batch of counts waits for more events after its first: counts lag by that much at most more. */
const GATHER_MS = 100;

/** The durables, each its own claim key: the tickets', the questions' and the polls' counts. */
const TICKET_COUNTS = 'events-ticket-counts';
const QUESTION_COUNTS = 'events-question-counts';
const POLL_COUNTS = 'events-poll-counts';
type CountsDurable = typeof TICKET_COUNTS | typeof QUESTION_COUNTS | typeof POLL_COUNTS;

/** A change of one count of one event (for tickets, of one tier), by the domain event `id`. */
interface Change {
  id: string;
  eventId: string;
  column: CountColumn;
  tierId?: string;
  delta: number;
}

/**
 * A batch of counted domain events in one statement, a transaction of its own: the events not
 * counted before by `durable` are claimed (freshEventsCte; one twice in the batch is one), their
 * changes summed per event, column and tier, and each event's row updated once. $1 the domain
 * events' ids, and for each its event, column, tier ('' when none) and change. Tickets sold never
 * go below zero.
 */
const countBatch = (durable: CountsDurable) => `${freshEventsCte('events', durable)}, sums AS (
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
  private readonly countBatch: Record<CountsDurable, (values: unknown[]) => Promise<unknown[]>>;

  constructor(
    dataSource: DataSource,
    private readonly outbox: OutboxWriter,
  ) {
    const statement = (name: string, durable: CountsDurable) =>
      preparedStatement(dataSource, `events.${name}`, countBatch(durable));
    this.countBatch = {
      [TICKET_COUNTS]: statement('count_ticket_batch', TICKET_COUNTS),
      [QUESTION_COUNTS]: statement('count_question_batch', QUESTION_COUNTS),
      [POLL_COUNTS]: statement('count_poll_batch', POLL_COUNTS),
    };
  }

  /**
   * What has arrived, in one statement (countBatch). Ticket sales from ticketing, questions and
   * polls from engagement, each on a durable consumer of its own (NATS 2.9 filters one subject
   * per consumer), caught up after a restart.
   */
  @OnDomainEvent('townhall.ticket.>', { durable: TICKET_COUNTS, batch: true, gatherMs: GATHER_MS })
  async countTickets(events: Array<DomainEventOf<'townhall.ticket.>'>>): Promise<void> {
    await this.count(
      TICKET_COUNTS,
      events.map(({ id, type, data: ticket }) => ({
        id,
        eventId: ticket.eventId,
        column: 'tickets_sold',
        tierId: ticket.tierId,
        delta: type === TicketTopics.issued ? 1 : -1,
      })),
    );
  }

  @OnDomainEvent('townhall.question.>', { durable: QUESTION_COUNTS, batch: true, gatherMs: GATHER_MS })
  async countQuestions(events: Array<DomainEventOf<'townhall.question.>'>>): Promise<void> {
    await this.count(
      QUESTION_COUNTS,
      onePerEvent(events, EngagementTopics.questionSubmitted, 'question_count'),
    );
  }

  @OnDomainEvent('townhall.poll.>', { durable: POLL_COUNTS, batch: true, gatherMs: GATHER_MS })
  async countPolls(events: Array<DomainEventOf<'townhall.poll.>'>>): Promise<void> {
    await this.count(POLL_COUNTS, onePerEvent(events, EngagementTopics.pollOpened, 'poll_count'));
  }

  private async count(durable: CountsDurable, counted: Change[]): Promise<void> {
    if (counted.length === 0) return;
    // Retried as every statement is when Postgres picks it as a deadlock victim; announces nothing.
    await this.outbox.runStatement(
      () =>
        this.countBatch[durable]([
          counted.map((change) => change.id),
          counted.map((change) => change.eventId),
          counted.map((change) => change.column),
          counted.map((change) => change.tierId ?? ''),
          counted.map((change) => change.delta),
        ]),
      { committed: () => [] },
    );
  }
}

/** One more in `column` of its event (the domain event's subject) for each event of `type`. */
function onePerEvent(events: readonly DomainEvent[], type: DomainEventType, column: CountColumn): Change[] {
  return events
    .filter((event) => event.type === type)
    .map(({ id, subject }) => ({ id, eventId: subject, column, delta: 1 }));
}
