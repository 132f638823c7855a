import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  DomainError,
  EngagementTopics,
  type ParsedRequestOf,
  type PollView,
  type Polls,
  type SignedMeta,
} from '@townhall/contracts';
import { OutboxWriter, queryRows } from '@townhall/platform/service';
import { Participants, requireNotBlocked, requireRole } from '../access/participants.js';
import { holdOpen } from '../db/functions.js';
import { POLL_COLUMNS, POLL_OPTION_COLUMNS, toPoll, type PollOptionRow, type PollRow } from './poll-row.js';

type PollOpening = ParsedRequestOf<typeof Polls.open>;

/** Speakers, moderators and the host open polls while the event is live. */
@Injectable()
export class OpenPoll {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly participants: Participants,
  ) {}

  async open(meta: SignedMeta, opening: PollOpening): Promise<PollView> {
    const { eventId } = opening;
    await this.participants.authorize(eventId, meta, (participant) => {
      requireRole(participant, ['host', 'moderator', 'speaker'], 'open polls');
      requireNotBlocked(participant);
      if (participant.status !== 'live')
        throw new DomainError('poll.not_live', `The event is ${participant.status}`);
    });
    if (opening.closesAt !== undefined && Date.parse(opening.closesAt) <= Date.now()) {
      throw new DomainError('validation.failed', 'closesAt must be in the future', [
        { field: 'closesAt', message: 'must be in the future' },
      ]);
    }
    return this.outbox.run(async (manager) => {
      // The stage lock, shared: the end of the event waits for this poll, which it then closes.
      if (!(await holdOpen(manager, { eventId })))
        throw new DomainError('poll.not_live', 'The event has ended');
      const [row] = await queryRows<PollRow>(
        manager,
        `INSERT INTO engagement.polls (event_id, opener_id, question, multiple, results_visibility, closes_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${POLL_COLUMNS}`,
        [
          eventId,
          meta.caller,
          opening.question,
          opening.multiple,
          opening.resultsVisibility,
          opening.closesAt ?? null,
        ],
      );
      const options = await queryRows<PollOptionRow>(
        manager,
        `INSERT INTO engagement.poll_options (poll_id, id, position, label)
         SELECT $1, t.id, t.position, t.label FROM unnest($2::text[], $3::int[], $4::text[]) AS t(id, position, label)
         RETURNING ${POLL_OPTION_COLUMNS}`,
        [
          row!.id,
          opening.options.map(() => randomUUID()),
          opening.options.map((_, index) => index),
          opening.options,
        ],
      );
      const poll = toPoll(row!, options);
      await this.outbox.announce(manager, [
        { type: EngagementTopics.pollOpened, subject: eventId, data: poll },
      ]);
      return poll;
    });
  }
}
