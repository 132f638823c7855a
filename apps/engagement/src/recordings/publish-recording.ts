import { Injectable } from '@nestjs/common';
import { DomainError, EngagementTopics, type RecordingView, type SignedMeta } from '@townhall/contracts';
import { OutboxWriter } from '@townhall/platform/service';
import { Participants, requireRole } from '../access/participants.js';
import { RecordingBook } from './recording-book.js';
import { FIRST_PAGE, START } from './recording-cursor.js';

/** The host makes the recording public (townhall.recording.published), once the event has ended. */
@Injectable()
export class PublishRecording {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly participants: Participants,
    private readonly book: RecordingBook,
  ) {}

  /** Optionally with a media URL and a summary; publishing again updates them. */
  async publish(
    meta: SignedMeta,
    eventId: string,
    media: { mediaUrl?: string | undefined; summary?: string | undefined },
  ): Promise<RecordingView> {
    const current = await this.book.find(eventId, START, 0);
    if (!current) {
      await this.participants.authorize(eventId, meta, (participant) =>
        requireRole(participant, ['host'], 'publish the recording'),
      );
      throw new DomainError('recording.not_found', 'The event has not ended');
    }
    if (current.host_id !== meta.caller)
      throw new DomainError('role.forbidden', 'Only the host can publish the recording');
    return this.outbox.run(async (manager) => {
      await manager.query(
        `UPDATE engagement.recordings SET published = true, published_at = COALESCE(published_at, now()),
           media_url = COALESCE($2, media_url), summary = COALESCE($3, summary)
         WHERE event_id = $1`,
        [eventId, media.mediaUrl ?? null, media.summary ?? null],
      );
      // Its first page: what the answer and the domain event carry (the rest is read by page).
      const row = await this.book.find(eventId, START, FIRST_PAGE.limit, manager);
      const recording = await this.book.view(row!, START, FIRST_PAGE.limit, manager);
      await this.outbox.announce(manager, [
        { type: EngagementTopics.recordingPublished, subject: eventId, data: recording },
      ]);
      return recording;
    });
  }
}
