import { Inject, Injectable } from '@nestjs/common';
import { EventTopics } from '@townhall/contracts';
import { CLOCK, OutboxWriter, Periodic, queryRows, SETTINGS, type Clock } from '@townhall/platform/service';
import type { EventsConfig } from '../config.js';
import { EVENT_COLUMNS, toEventView, type EventRow } from '../events/event-row.js';
import type { EventsSettings } from '../settings.js';

/** Events reminded in one transaction; a run takes batches until none is left. */
const BATCH = 100;

/**
 * Reminds of events about to start: a scheduled event whose start is within
 * EVENT_REMINDER_LEAD_MINUTES is announced `townhall.event.starting_soon` once for its start time
 * (its host and ticket holders get it by webhook, its watchers on the live stream). A PATCH that
 * moves `startsAt` clears `reminded_at`, so the new time is reminded again; an event created
 * inside the lead is reminded at the next run; one that has started, or was cancelled, is not.
 *
 * Every replica runs it: each batch marks its rows with one conditional UPDATE over rows locked
 * `FOR UPDATE SKIP LOCKED`, in the transaction of the announcements, so an event is reminded by
 * exactly one of them.
 */
@Injectable()
export class EventReminders {
  /** How long before its start an event is reminded of (EVENT_REMINDER_LEAD_MINUTES). */
  private readonly leadMinutes: number;

  constructor(
    private readonly outbox: OutboxWriter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SETTINGS) settings: EventsSettings,
  ) {
    this.leadMinutes = settings.reminderLeadMinutes;
  }

  @Periodic<EventsConfig>({ every: 'EVENT_REMINDER_INTERVAL_MS', runAtStart: true })
  async remindDue(): Promise<number> {
    let reminded = 0;
    for (;;) {
      const batch = await this.outbox.run(async (manager) => {
        const now = this.clock();
        const rows = await queryRows<EventRow>(
          manager,
          `UPDATE events.events SET reminded_at = $1
           WHERE id IN (
             SELECT id FROM events.events
             WHERE status = 'scheduled' AND reminded_at IS NULL
               AND starts_at > $1 AND starts_at <= $1 + make_interval(mins => $2)
             ORDER BY starts_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
           RETURNING ${EVENT_COLUMNS}`,
          [now, this.leadMinutes],
        );
        const views = rows.map(toEventView).sort((a, b) => a.startsAt.localeCompare(b.startsAt));
        await this.outbox.announce(
          manager,
          views.map((view) => ({ type: EventTopics.startingSoon, subject: view.id, data: view })),
        );
        return views.length;
      });
      reminded += batch;
      if (batch < BATCH) return reminded;
    }
  }
}
