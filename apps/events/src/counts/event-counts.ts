import { Injectable } from '@nestjs/common';
import { EngagementTopics, TicketTopics, type CloudEvent, type TicketView } from '@townhall/contracts';
import { Changes, claimEventOnce, queryRows } from '@townhall/platform/service';

/**
 * Durable consumers, one per subject filter (NATS 2.9 filters one subject per consumer):
 * ticket sales from ticketing, questions and polls from engagement.
 */
export const COUNT_SUBSCRIPTIONS = [
  { durable: 'events-ticket-counts', subjects: ['townhall.ticket.>'] },
  { durable: 'events-question-counts', subjects: ['townhall.question.>'] },
  { durable: 'events-poll-counts', subjects: ['townhall.poll.>'] },
];

/**
 * Keeps an event's `counts` (tickets sold per tier, questions, polls) from the domain events
 * of the services that own them: a projection for readers, and for PATCH's capacity check.
 * Each domain event is counted once (claimEventOnce in the same transaction).
 */
@Injectable()
export class EventCounts {
  constructor(private readonly changes: Changes) {}

  async handle(event: CloudEvent): Promise<void> {
    const update = this.updateFor(event);
    if (!update) return;
    await this.changes.run(async (manager) => {
      if (!(await claimEventOnce(manager, 'events', 'events-counts', event.id))) return;
      await queryRows(manager, update.sql, update.params);
    });
  }

  private updateFor(event: CloudEvent): { sql: string; params: unknown[] } | undefined {
    switch (event.type) {
      case TicketTopics.issued:
      case TicketTopics.cancelled: {
        const ticket = event.data as TicketView;
        return {
          sql: `UPDATE events.events
                SET tickets_sold = jsonb_set(tickets_sold, ARRAY[$2::text],
                  to_jsonb(GREATEST(COALESCE((tickets_sold->>$2)::int, 0) + $3, 0)))
                WHERE id = $1`,
          params: [ticket.eventId, ticket.tierId, event.type === TicketTopics.issued ? 1 : -1],
        };
      }
      case EngagementTopics.questionSubmitted:
        return {
          sql: 'UPDATE events.events SET question_count = question_count + 1 WHERE id = $1',
          params: [event.subject],
        };
      case EngagementTopics.pollOpened:
        return {
          sql: 'UPDATE events.events SET poll_count = poll_count + 1 WHERE id = $1',
          params: [event.subject],
        };
      default:
        return undefined;
    }
  }
}
