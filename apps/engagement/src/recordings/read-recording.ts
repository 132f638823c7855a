import { Injectable } from '@nestjs/common';
import { DomainError, type MessageMeta, type RecordingView } from '@townhall/contracts';
import { Participants } from '../access/participants.js';
import { RecordingBook } from './recording-book.js';
import { decodeRecordingCursor, FIRST_PAGE, START, type RecordingPage } from './recording-cursor.js';

/** A page of the recording: read by the host alone until the host publishes it, public after. */
@Injectable()
export class ReadRecording {
  constructor(
    private readonly participants: Participants,
    private readonly book: RecordingBook,
  ) {}

  /**
   * Published: anyone (meta.caller null on the public route). Before: the host only, signed
   * (the gateway's draft route); unsigned it does not exist yet (404 recording.not_found).
   */
  async read(eventId: string, meta: MessageMeta, page: RecordingPage = FIRST_PAGE): Promise<RecordingView> {
    const position = page.cursor === undefined ? START : decodeRecordingCursor(page.cursor);
    const row = await this.book.find(eventId, position, page.limit);
    if (!row) {
      await this.participants.event(eventId, meta); // 404 event.not_found for an unknown event
      throw new DomainError('recording.not_found', 'The event has not ended');
    }
    if (!row.published) {
      if (meta.caller === null)
        throw new DomainError('recording.not_found', 'The recording is not published');
      if (meta.caller !== row.host_id)
        throw new DomainError('role.forbidden', 'Only the host reads the recording before it is published');
    }
    return this.book.view(row, position, page.limit);
  }
}
