import { Inject, Injectable } from '@nestjs/common';
import {
  CLOCK,
  LOGGER,
  OutboxWriter,
  Periodic,
  queryRows,
  type Clock,
  type Logger,
} from '@townhall/platform/service';
import type { EventsConfig } from '../config.js';
import { extensionDue, plannedOccurrences, type Occurrence } from './recurrence.js';
import { SeriesBook } from './series-book.js';
import { SERIES_COLUMNS, type SeriesRow } from './series-row.js';

/** Series extended per transaction of a pass. */
const EXTEND_BATCH = 50;

/**
 * Creates the occurrences that have come within the horizon since the last look, as time passes.
 * Only live series whose `extend_due_at` has come are read, a batch at a time, each locked with
 * `FOR UPDATE SKIP LOCKED` in the transaction that extends it and moves its due time on: on
 * every replica at once, each due series is extended by one of them, and an ended one by none.
 */
@Injectable()
export class ExtendSeries {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly book: SeriesBook,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Periodic<EventsConfig>({ every: 'SERIES_EXTEND_INTERVAL_MS', runAtStart: true })
  async extendAll(): Promise<number> {
    const now = this.clock();
    let created = 0;
    for (;;) {
      const { count, full } = await this.outbox.run(async (manager) => {
        const due = await queryRows<SeriesRow>(
          manager,
          `SELECT ${SERIES_COLUMNS} FROM events.series
           WHERE ended_at IS NULL AND extend_due_at <= $1
           ORDER BY extend_due_at LIMIT ${EXTEND_BATCH} FOR UPDATE SKIP LOCKED`,
          [now],
        );
        let count = 0;
        for (const series of due) {
          let planned: Occurrence[] = [];
          let next: Date | null;
          // One series whose rule cannot be expanded (say, a zone the runtime no longer knows)
          // must not stop the others: it is looked at again a day later.
          try {
            planned = plannedOccurrences(series.recurrence, now);
            next = extensionDue(series.recurrence, planned, now);
          } catch (error) {
            this.logger.error({ err: error, seriesId: series.id }, 'could not extend series');
            next = new Date(now.getTime() + 86_400_000);
          }
          if (planned.length > 0) count += (await this.book.materialize(manager, series, planned)).length;
          await queryRows(manager, 'UPDATE events.series SET extend_due_at = $2 WHERE id = $1', [
            series.id,
            next,
          ]);
        }
        return { count, full: due.length === EXTEND_BATCH };
      });
      created += count;
      if (!full) return created;
    }
  }
}
