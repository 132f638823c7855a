import { Controller } from '@nestjs/common';
import { Questions, type MessageMeta, type ParsedRequestOf, signedMeta } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';

import { QuestionsService } from './questions.service.js';

@Controller()
export class QuestionsHandler {
  constructor(private readonly questions: QuestionsService) {}

  @Handle(Questions.submit)
  submit(data: ParsedRequestOf<typeof Questions.submit>, meta: MessageMeta) {
    return this.questions.submit(signedMeta(meta), data.eventId, data.body);
  }

  @Handle(Questions.list)
  list(data: ParsedRequestOf<typeof Questions.list>, meta: MessageMeta) {
    return this.questions.list(data, meta);
  }

  /** Question.upvote: `up` true to upvote, false to withdraw; both idempotent. */
  @Handle(Questions.upvote)
  upvote(data: ParsedRequestOf<typeof Questions.upvote>, meta: MessageMeta) {
    return this.questions.upvote(signedMeta(meta), data.eventId, data.questionId, data.up);
  }

  @Handle(Questions.withdraw)
  withdraw(data: ParsedRequestOf<typeof Questions.withdraw>, meta: MessageMeta) {
    return this.questions.withdraw(signedMeta(meta), data.eventId, data.questionId);
  }

  @Handle(Questions.report)
  report(data: ParsedRequestOf<typeof Questions.report>, meta: MessageMeta) {
    return this.questions.report(signedMeta(meta), data.eventId, data.questionId, data.reason);
  }

  @Handle(Questions.moderate)
  moderate(data: ParsedRequestOf<typeof Questions.moderate>, meta: MessageMeta) {
    return this.questions.moderate(signedMeta(meta), data.eventId, data.questionId, data.action);
  }
}
