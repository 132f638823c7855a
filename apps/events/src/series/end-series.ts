import { Inject, Injectable } from '@nestjs/common';
import { DomainError, EventTopics, SeriesTopics, type SeriesView } from '@townhall/contracts';
import { CLOCK, OutboxWriter, queryRows, type Clock } from '@townhall/platform/service';
import { EVENT_COLUMNS, toEventView, type EventRow } from '../events/event-row.js';
import { SeriesBook } from './series-book.js';

/**
 * The host ends the series (docs/product.md "Series"): nothing is scheduled for it any more, and
 * each occurrence not yet started that nobody holds a ticket for (the `tickets_sold` counts) is
 * cancelled; those with tickets stay, for their holders, until the host cancels one. The series
 * row is locked first, so an extension at work finishes before and one after finds it ended.
 * Idempotent: an ended series answers as it is, and nothing is announced again.
 */
@Injectable()
export class EndSeries {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly book: SeriesBook,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async end(seriesId: string, caller: string): Promise<SeriesView> {
    await this.outbox.run(async (manager) => {
      const series = await this.book.find(seriesId, manager, { lock: true });
      if (series.host_id !== caller)
        throw new DomainError('role.forbidden', 'Only the host can end this series');
      if (series.ended_at !== null) return;
      const now = this.clock();
      await queryRows(
        manager,
        'UPDATE events.series SET ended_at = $2, extend_due_at = NULL, updated_at = now() WHERE id = $1',
        [seriesId, now],
      );
      const cancelled = await queryRows<EventRow>(
        manager,
        `UPDATE events.events SET status = 'cancelled', cancelled_at = now(), updated_at = now(), version = version + 1
         WHERE series_id = $1 AND status = 'scheduled' AND starts_at > $2
           AND NOT EXISTS (SELECT 1 FROM jsonb_each_text(tickets_sold) AS sold WHERE sold.value::int > 0)
         RETURNING ${EVENT_COLUMNS}`,
        [seriesId, now],
      );
      cancelled.sort((a, b) => a.starts_at.getTime() - b.starts_at.getTime());
      const view = await this.book.view(seriesId, manager);
      await this.outbox.announce(manager, [
        ...cancelled.map((row) => ({ type: EventTopics.cancelled, subject: row.id, data: toEventView(row) })),
        { type: SeriesTopics.ended, subject: seriesId, data: view },
      ]);
    });
    return this.book.view(seriesId);
  }
}
