import { Injectable } from '@nestjs/common';
import { EngagementTopics, type DomainEventOf } from '@townhall/contracts';
import { claimEventOnce, OnDomainEvent, OutboxWriter, queryRows } from '@townhall/platform/service';
import { EVENTS_SCHEMA } from '../data-source.js';

const DURABLE = 'events-recordings';

/**
 * Keeps, on each event, when the host published its recording (engagement owns recordings): the
 * EventView's `recordingPublishedAt`, so that a list of past events (the index page, an agent's
 * GET /events?status=past) says which have one without a request per event. The first
 * publication counts; a later one (a new summary) changes nothing here.
 */
@Injectable()
export class PublishedRecordings {
  constructor(private readonly outbox: OutboxWriter) {}

  @OnDomainEvent(EngagementTopics.recordingPublished, { durable: DURABLE })
  async record(event: DomainEventOf<typeof EngagementTopics.recordingPublished>): Promise<void> {
    const recording = event.data;
    if (recording.publishedAt === null) return;
    await this.outbox.run(async (manager) => {
      if (!(await claimEventOnce(manager, EVENTS_SCHEMA, DURABLE, event.id))) return;
      await queryRows(
        manager,
        `UPDATE events.events SET recording_published_at = $2
         WHERE id = $1 AND recording_published_at IS NULL`,
        [recording.eventId, recording.publishedAt],
      );
    });
  }
}
