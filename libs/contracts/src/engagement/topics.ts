// The domain events the engagement service announces (docs/protocol/domain-events.md).

export const EngagementTopics = {
  stagePosted: 'townhall.stage.posted',
  questionSubmitted: 'townhall.question.submitted',
  questionUpvoted: 'townhall.question.upvoted',
  questionPromoted: 'townhall.question.promoted',
  questionAnswered: 'townhall.question.answered',
  questionDismissed: 'townhall.question.dismissed',
  questionApproved: 'townhall.question.approved',
  questionWithdrawn: 'townhall.question.withdrawn',
  /** Moderators and the host only (visibility `staff`): never on the public live stream. */
  questionReported: 'townhall.question.reported',
  /** An open question sent back to `pending` by reports: it leaves public view. */
  questionHeld: 'townhall.question.held',
  stageHidden: 'townhall.stage.hidden',
  participantBlocked: 'townhall.participant.blocked',
  participantUnblocked: 'townhall.participant.unblocked',
  pollOpened: 'townhall.poll.opened',
  pollVoted: 'townhall.poll.voted',
  pollClosed: 'townhall.poll.closed',
  recordingPublished: 'townhall.recording.published',
} as const;
