import { Controller } from '@nestjs/common';
import { Questions, type MessageMeta, type ParsedRequestOf, signedMeta } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { ListQuestions } from './list-questions.js';
import { ModerateQuestion } from './moderate-question.js';
import { ReportQuestion } from './report-question.js';
import { SubmitQuestion } from './submit-question.js';
import { UpvoteQuestion } from './upvote-question.js';
import { WithdrawQuestion } from './withdraw-question.js';

/** Q&A's message handlers (docs/product.md "Live stage, Q&A, polls"): one per contract of `Questions`. */
@Controller()
export class QuestionsHandler {
  constructor(
    private readonly submissions: SubmitQuestion,
    private readonly lists: ListQuestions,
    private readonly upvotes: UpvoteQuestion,
    private readonly withdrawals: WithdrawQuestion,
    private readonly reports: ReportQuestion,
    private readonly moderation: ModerateQuestion,
  ) {}

  @Handle(Questions.submit)
  submit(data: ParsedRequestOf<typeof Questions.submit>, meta: MessageMeta) {
    return this.submissions.submit(signedMeta(meta), data.eventId, data.body);
  }

  @Handle(Questions.list)
  list(data: ParsedRequestOf<typeof Questions.list>, meta: MessageMeta) {
    return this.lists.list(data, meta);
  }

  /** Question.upvote: `up` true to upvote, false to withdraw; both idempotent. */
  @Handle(Questions.upvote)
  upvote(data: ParsedRequestOf<typeof Questions.upvote>, meta: MessageMeta) {
    return this.upvotes.upvote(signedMeta(meta), data.eventId, data.questionId, data.up);
  }

  @Handle(Questions.withdraw)
  withdraw(data: ParsedRequestOf<typeof Questions.withdraw>, meta: MessageMeta) {
    return this.withdrawals.withdraw(signedMeta(meta), data.eventId, data.questionId);
  }

  @Handle(Questions.report)
  report(data: ParsedRequestOf<typeof Questions.report>, meta: MessageMeta) {
    return this.reports.report(signedMeta(meta), data.eventId, data.questionId, data.reason);
  }

  @Handle(Questions.moderate)
  moderate(data: ParsedRequestOf<typeof Questions.moderate>, meta: MessageMeta) {
    return this.moderation.moderate(signedMeta(meta), data.eventId, data.questionId, data.action);
  }
}
