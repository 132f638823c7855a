import { Controller } from '@nestjs/common';
import { Polls, type MessageMeta, type ParsedRequestOf, signedMeta } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { CastBallot } from './cast-ballot.js';
import { ClosePolls } from './close-polls.js';
import { ListPolls } from './list-polls.js';
import { OpenPoll } from './open-poll.js';

/** The polls' message handlers: one per contract of `Polls`. */
@Controller()
export class PollsHandler {
  constructor(
    private readonly openings: OpenPoll,
    private readonly lists: ListPolls,
    private readonly ballots: CastBallot,
    private readonly closings: ClosePolls,
  ) {}

  @Handle(Polls.open)
  open(data: ParsedRequestOf<typeof Polls.open>, meta: MessageMeta) {
    return this.openings.open(signedMeta(meta), data);
  }

  @Handle(Polls.list)
  list(data: ParsedRequestOf<typeof Polls.list>, meta: MessageMeta) {
    return this.lists.list(data, meta);
  }

  @Handle(Polls.vote)
  vote(data: ParsedRequestOf<typeof Polls.vote>, meta: MessageMeta) {
    return this.ballots.cast(signedMeta(meta), data.eventId, data.pollId, data.optionIds);
  }

  @Handle(Polls.close)
  close(data: ParsedRequestOf<typeof Polls.close>, meta: MessageMeta) {
    return this.closings.close(signedMeta(meta), data.eventId, data.pollId);
  }
}
