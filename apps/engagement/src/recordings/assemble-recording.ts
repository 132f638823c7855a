import { Inject, Injectable } from '@nestjs/common';
import { type EventView } from '@townhall/contracts';
import { CLOCK, type Clock } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import { closeStage } from '../db/functions.js';
import { ClosePolls } from '../polls/close-polls.js';
import { PollBook } from '../polls/poll-book.js';
import { QuestionBook } from '../questions/question-book.js';
import { StageBook } from '../stage/stage-book.js';
import type { StoredTranscript } from './recording-row.js';

/**
 * Recordings (docs/product.md "Recordings") are assembled when the event ends, by the consumer of
 * its end (projection/event-standings.ts), in the transaction that applies it.
 */
@Injectable()
export class AssembleRecording {
  constructor(
    private readonly stage: StageBook,
    private readonly questions: QuestionBook,
    private readonly polls: PollBook,
    private readonly pollClosing: ClosePolls,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The end of the event, in one transaction: nothing more is accepted for it (closeStage waits
   * for the writes in flight), its open polls close, and the recording freezes what happened.
   */
  async assemble(manager: EntityManager, event: EventView): Promise<void> {
    const endedAt = event.endedAt ?? this.clock().toISOString();
    await closeStage(manager, { eventId: event.id, endedAt });
    await this.pollClosing.closeAllOf(manager, event.id);
    const transcript: StoredTranscript = {
      agenda: event.agenda,
      stage: await this.stage.all(manager, event.id),
      questions: await this.questions.all(manager, event.id),
      polls: await this.polls.all(manager, event.id),
    };
    await manager.query(
      `INSERT INTO engagement.recordings (event_id, host_id, ended_at, transcript) VALUES ($1, $2, $3, $4::jsonb)
       ON CONFLICT (event_id) DO NOTHING`,
      [event.id, event.hostId, endedAt, JSON.stringify(transcript)],
    );
  }
}
