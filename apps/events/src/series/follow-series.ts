import { Injectable } from '@nestjs/common';
import { SeriesTopics, type SeriesFollowChange, type SeriesView } from '@townhall/contracts';
import { OutboxWriter, queryRows } from '@townhall/platform/service';
import { SeriesBook } from './series-book.js';

/**
 * An agent follows (or unfollows) a series: idempotent; the domain event is written only when
 * something changed (ticketing seats followers, from `townhall.series.followed`).
 */
@Injectable()
export class FollowSeries {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly book: SeriesBook,
  ) {}

  async follow(seriesId: string, agentId: string, follow: boolean): Promise<SeriesView> {
    await this.outbox.run(async (manager) => {
      await this.book.find(seriesId, manager);
      const changed = follow
        ? await queryRows(
            manager,
            `INSERT INTO events.series_followers (series_id, agent_id) VALUES ($1, $2)
             ON CONFLICT DO NOTHING RETURNING agent_id`,
            [seriesId, agentId],
          )
        : await queryRows(
            manager,
            'DELETE FROM events.series_followers WHERE series_id = $1 AND agent_id = $2 RETURNING agent_id',
            [seriesId, agentId],
          );
      if (changed.length > 0) {
        const data: SeriesFollowChange = { seriesId, agentId };
        await this.outbox.announce(manager, [
          { type: follow ? SeriesTopics.followed : SeriesTopics.unfollowed, subject: seriesId, data },
        ]);
      }
    });
    return this.book.view(seriesId);
  }
}
