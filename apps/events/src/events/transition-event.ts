import { Injectable } from '@nestjs/common';
import { DomainError, EventTopics, isUuid, type EventView, type LifecycleAction } from '@townhall/contracts';
import { OutboxWriter, queryRows } from '@townhall/platform/service';
import { EventBook } from './event-book.js';
import { EVENT_COLUMNS, toEventView, type EventRow } from './event-row.js';

/** Each lifecycle action is a compare-and-set from exactly one state (docs/product.md "Event lifecycle"). */
const TRANSITIONS = {
  start: { from: 'scheduled', to: 'live', stamp: 'started_at', topic: EventTopics.started },
  end: { from: 'live', to: 'past', stamp: 'ended_at', topic: EventTopics.ended },
  cancel: { from: 'scheduled', to: 'cancelled', stamp: 'cancelled_at', topic: EventTopics.cancelled },
} as const;

/**
 * The host starts, ends or cancels an event, as one conditional UPDATE: of two racing transitions
 * exactly one matches the expected state; the other finds none and gets 409.
 */
@Injectable()
export class TransitionEvent {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly book: EventBook,
  ) {}

  async transition(eventId: string, caller: string, action: LifecycleAction): Promise<EventView> {
    const step = TRANSITIONS[action];
    return this.outbox.run(async (manager) => {
      const [row] = isUuid(eventId)
        ? await queryRows<EventRow>(
            manager,
            `UPDATE events.events SET status = $3, ${step.stamp} = now(), updated_at = now(), version = version + 1
             WHERE id = $1 AND host_id = $2 AND status = $4 RETURNING ${EVENT_COLUMNS}`,
            [eventId, caller, step.to, step.from],
          )
        : [];
      if (!row) {
        const current = await this.book.find(eventId, manager);
        if (current.host_id !== caller)
          throw new DomainError('role.forbidden', `Only the host can ${action} this event`);
        throw new DomainError(
          'event.invalid_transition',
          `Cannot ${action} an event that is ${current.status}`,
        );
      }
      const view = toEventView(row);
      await this.outbox.announce(manager, [{ type: step.topic, subject: view.id, data: view }]);
      return view;
    });
  }
}
