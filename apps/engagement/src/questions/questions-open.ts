import { DomainError, type EventStatus } from '@townhall/contracts';
import type { EntityManager } from 'typeorm';
import { requireAttendee, requireNotBlocked, type Participant } from '../access/participants.js';
import { holdOpen } from '../db/functions.js';

// When questions are taken. Two checks, because the event's standing (projected from the events
// service's domain events) may not show the end yet while the stage row already does: the
// standing refuses before any transaction opens, the stage lock inside the write's transaction.

/** Questions are taken (and voted on, and moderated) while the event is scheduled (AMA pre-questions) or live. */
const OPEN_STATUSES: ReadonlySet<EventStatus> = new Set(['scheduled', 'live']);

/** Refuses (409) a question, upvote or moderation once the event is neither scheduled nor live. */
export function requireOpen(status: EventStatus): void {
  if (!OPEN_STATUSES.has(status)) throw new DomainError('question.closed', `The event is ${status}`);
}

/** An attendee taking part in the Q&A (asking, upvoting, reporting): not blocked, attending, in time. */
export function requireAttendeeWhileOpen(participant: Participant, doing: string): void {
  requireNotBlocked(participant);
  requireAttendee(participant, doing);
  requireOpen(participant.status);
}

/** 409 question.closed: the stage has closed (the end of the event was applied here). */
export function eventEnded(): DomainError {
  return new DomainError('question.closed', 'The event has ended');
}

/**
 * Holds the event open until the caller's transaction ends (its stage lock, shared), so the end
 * of the event waits for this write and the recording holds it; 409 once the stage has closed.
 */
export async function holdQuestionsOpen(manager: EntityManager, eventId: string): Promise<void> {
  if (!(await holdOpen(manager, { eventId }))) throw eventEnded();
}
