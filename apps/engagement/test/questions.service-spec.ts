// Q&A's use cases on the service tier (src/questions/): each rule of submit, upvote, moderate,
// withdraw, report and list, with the domain events each change announced (written to the outbox
// in its transaction). The stand-ins and events are test/fixtures.ts's.
import { randomUUID } from 'node:crypto';
import { generateAgentKey } from '@townhall/auth';
import {
  Blocks,
  DEFAULT_MODERATION,
  EngagementTopics,
  EventTopics,
  Polls,
  Questions,
  Stage,
  type Page,
  type QuestionAction,
  type QuestionView,
  type RequestOf,
} from '@townhall/contracts';
import { refusalOf } from '@townhall/testing/service';
import { EngagementFixtures } from './fixtures.js';

describe('engagement service: questions', () => {
  const { engagement, host, moderator, liveEvent, attendee, ask, change } =
    new EngagementFixtures().forSpec();

  const codeOf = async (request: Promise<unknown>) => (await refusalOf(request)).code;
  const upvote = (eventId: string, questionId: string, agent: string, up = true) =>
    engagement().send(Questions.upvote, { eventId, questionId, up }, agent);
  const moderate = (eventId: string, questionId: string, action: QuestionAction, agent = moderator) =>
    engagement().send(Questions.moderate, { eventId, questionId, action }, agent);
  const withdraw = (eventId: string, questionId: string, agent: string) =>
    engagement().send(Questions.withdraw, { eventId, questionId }, agent);
  const report = (eventId: string, questionId: string, agent: string, reason?: string) =>
    engagement().send(Questions.report, { eventId, questionId, ...(reason ? { reason } : {}) }, agent);
  const list = (query: RequestOf<typeof Questions.list>, caller: string | null = null) =>
    engagement().send(Questions.list, query, caller);
  const ids = (page: Page<QuestionView>) => page.items.map((question) => question.id);

  /**
   * The domain events announced about a question (its own, and the stage message promoting it), in
   * order, as `<type>` or `<type> (staff)`: what the service published once its outbox is empty.
   */
  async function announced(questionId: string): Promise<string[]> {
    await engagement().settled();
    return engagement()
      .published.filter((event) => {
        const data = event.data as { id?: string; question?: { id?: string }; questionId?: string } | null;
        return [data?.id, data?.question?.id, data?.questionId].includes(questionId);
      })
      .map((event) => event.type + (event.visibility === 'staff' ? ' (staff)' : ''));
  }
  const T = EngagementTopics;

  it('upvotes once per agent both ways, never its own question, and only a public one not settled', async () => {
    const eventId = await liveEvent();
    const [author, voter] = [await attendee(eventId), await attendee(eventId)];
    const question = await ask(eventId, author);
    expect((await upvote(eventId, question.id, voter)).upvotes).toBe(1);
    expect((await upvote(eventId, question.id, voter)).upvotes).toBe(1); // again: a no-op
    expect(await codeOf(upvote(eventId, question.id, author))).toBe('question.own_upvote');
    expect((await upvote(eventId, question.id, voter, false)).upvotes).toBe(0);
    expect((await upvote(eventId, question.id, voter, false)).upvotes).toBe(0);
    expect(await announced(question.id)).toEqual([T.questionSubmitted, T.questionUpvoted, T.questionUpvoted]);

    expect(await codeOf(upvote(eventId, question.id, generateAgentKey().agentId))).toBe('role.forbidden');
    expect(await codeOf(upvote(eventId, randomUUID(), voter))).toBe('question.not_found');
    await moderate(eventId, question.id, 'dismiss');
    expect(await codeOf(upvote(eventId, question.id, voter))).toBe('question.invalid_transition');
  });

  it('moderates each step only from the states it allows; promoting puts the question on the stage', async () => {
    const eventId = await liveEvent();
    const author = await attendee(eventId);
    const question = await ask(eventId, author, 'On stage?');
    expect(await codeOf(moderate(eventId, question.id, 'answer'))).toBe('question.invalid_transition');
    expect(await codeOf(moderate(eventId, question.id, 'approve'))).toBe('question.invalid_transition');
    expect(await codeOf(moderate(eventId, question.id, 'promote', author))).toBe('role.forbidden');

    expect(await moderate(eventId, question.id, 'promote')).toMatchObject({ state: 'promoted', reports: 0 });
    const stage = await engagement().send(Stage.list, { eventId });
    expect(stage.items).toEqual([
      expect.objectContaining({ sequence: 1, kind: 'question', questionId: question.id, body: 'On stage?' }),
    ]);
    expect((await moderate(eventId, question.id, 'answer', host)).state).toBe('answered');
    expect(await codeOf(moderate(eventId, question.id, 'dismiss'))).toBe('question.invalid_transition');
    // The new state first, then the stage message that shows it.
    expect(await announced(question.id)).toEqual([
      T.questionSubmitted,
      T.questionPromoted,
      T.stagePosted,
      T.questionAnswered,
    ]);

    // Questions are taken before the start, but go on stage only while it is live.
    const ahead = await liveEvent('scheduled');
    const early = await ask(ahead, await attendee(ahead));
    expect(await codeOf(moderate(ahead, early.id, 'promote'))).toBe('stage.closed');
    expect((await moderate(ahead, early.id, 'dismiss')).state).toBe('dismissed');
  });

  it('pre-moderation: a pending question is its author’s and the staff’s until approved; dismissed, it stays withheld', async () => {
    const eventId = await liveEvent('live', { moderation: { ...DEFAULT_MODERATION, questions: 'pre' } });
    const [author, other] = [await attendee(eventId), await attendee(eventId)];
    const held = await ask(eventId, author, 'Held?');
    const spam = await ask(eventId, author, 'Spam');
    expect(held.state).toBe('pending');
    expect(await codeOf(upvote(eventId, held.id, other))).toBe('question.not_found');
    expect(await codeOf(list({ eventId, state: 'pending' }))).toBe('role.forbidden'); // unsigned
    expect(ids(await list({ eventId, state: 'pending' }, author))).toEqual([held.id, spam.id]);
    expect(ids(await list({ eventId, state: 'pending' }, other))).toEqual([]);
    expect(ids(await list({ eventId, state: 'pending' }, moderator))).toEqual([held.id, spam.id]);
    expect(ids(await list({ eventId }))).toEqual([]);

    await moderate(eventId, held.id, 'approve');
    await moderate(eventId, spam.id, 'dismiss');
    expect(ids(await list({ eventId }))).toEqual([held.id]);
    expect(ids(await list({ eventId, state: 'dismissed' }))).toEqual([]);
    expect(ids(await list({ eventId, state: 'dismissed' }, moderator))).toEqual([spam.id]);
    expect(await announced(held.id)).toEqual([`${T.questionSubmitted} (staff)`, T.questionApproved]);
    expect(await announced(spam.id)).toEqual([
      `${T.questionSubmitted} (staff)`,
      `${T.questionDismissed} (staff)`,
    ]);
  });

  it('a hidden question (pending, withdrawn, of a blocked author) is not found on every route by all but the staff and its author', async () => {
    const eventId = await liveEvent('live', { moderation: { ...DEFAULT_MODERATION, questions: 'pre' } });
    const [author, voter, stranger, blockedAuthor] = [
      await attendee(eventId),
      await attendee(eventId),
      await attendee(eventId),
      await attendee(eventId),
    ];
    const pending = await ask(eventId, author, 'Held for review');
    const withdrawn = await ask(eventId, author, 'Taken back');
    const ofBlocked = await ask(eventId, blockedAuthor, 'Asked before the block');
    await moderate(eventId, withdrawn.id, 'approve');
    await moderate(eventId, ofBlocked.id, 'approve');
    // The voter upvoted both while they were public: withdrawing those upvotes must not show them.
    await upvote(eventId, withdrawn.id, voter);
    await upvote(eventId, ofBlocked.id, voter);
    await withdraw(eventId, withdrawn.id, author);
    await engagement().send(Blocks.set, { eventId, agentId: blockedAuthor, blocked: true }, moderator);

    const hidden = [pending, withdrawn, ofBlocked];
    const unknown = randomUUID();
    for (const caller of [voter, stranger]) {
      for (const { id } of [...hidden, { id: unknown }]) {
        expect(await codeOf(upvote(eventId, id, caller))).toBe('question.not_found');
        expect(await codeOf(upvote(eventId, id, caller, false))).toBe('question.not_found');
        expect(await codeOf(withdraw(eventId, id, caller))).toBe('question.not_found');
        expect(await codeOf(report(eventId, id, caller))).toBe('question.not_found');
        // Moderating is the staff's: refused alike whether the question exists or not.
        expect(await codeOf(moderate(eventId, id, 'dismiss', caller))).toBe('role.forbidden');
      }
      expect(ids(await list({ eventId }, caller))).toEqual([]);
      for (const state of ['pending', 'withdrawn', 'open'] as const)
        expect(ids(await list({ eventId, state }, caller))).toEqual([]);
    }
    // The voter's upvotes stay where they were: a 404 changed nothing.
    const upvotes = await engagement().query<{ question_id: string }>(
      'SELECT question_id FROM engagement.question_upvotes WHERE agent_id = $1 ORDER BY question_id',
      [voter],
    );
    expect(upvotes.map((row) => row.question_id)).toEqual([withdrawn.id, ofBlocked.id].sort());

    // Its author sees its own (a blocked author is refused as blocked, not told it is missing).
    expect(await codeOf(upvote(eventId, pending.id, author, false))).toBe('question.own_upvote');
    expect(await codeOf(report(eventId, withdrawn.id, author))).toBe('question.own_report');
    expect((await withdraw(eventId, withdrawn.id, author)).state).toBe('withdrawn');
    expect(await codeOf(upvote(eventId, ofBlocked.id, blockedAuthor, false))).toBe('role.blocked');
    // The staff see each one as it is.
    expect((await upvote(eventId, withdrawn.id, moderator, false)).body).toBe('Taken back');
    expect(await codeOf(upvote(eventId, pending.id, host))).toBe('question.invalid_transition');
    expect(await codeOf(withdraw(eventId, ofBlocked.id, moderator))).toBe('role.forbidden');
    expect((await upvote(eventId, ofBlocked.id, host)).upvotes).toBe(2);
    expect(ids(await list({ eventId, state: 'pending' }, moderator))).toEqual([pending.id]);
  });

  it('withdraws for its author only, from pending or open; again is a no-op', async () => {
    const eventId = await liveEvent();
    const [author, other] = [await attendee(eventId), await attendee(eventId)];
    const question = await ask(eventId, author);
    expect(await codeOf(withdraw(eventId, question.id, other))).toBe('role.forbidden');
    expect((await withdraw(eventId, question.id, author)).state).toBe('withdrawn');
    expect((await withdraw(eventId, question.id, author)).state).toBe('withdrawn');
    expect(await codeOf(withdraw(eventId, question.id, other))).toBe('question.not_found'); // out of public view
    expect(ids(await list({ eventId }))).toEqual([]);
    expect(ids(await list({ eventId, state: 'withdrawn' }, author))).toEqual([question.id]);
    expect(await announced(question.id)).toEqual([T.questionSubmitted, T.questionWithdrawn]);

    const promoted = await ask(eventId, author, 'Promoted first');
    await moderate(eventId, promoted.id, 'promote');
    expect(await codeOf(withdraw(eventId, promoted.id, author))).toBe('question.invalid_transition');
  });

  it('counts a report once per agent; the one reaching the threshold holds the question until a moderator clears it', async () => {
    const eventId = await liveEvent('live', { moderation: { ...DEFAULT_MODERATION, reportThreshold: 2 } });
    const author = await attendee(eventId);
    const [first, second, third, fourth] = [
      await attendee(eventId),
      await attendee(eventId),
      await attendee(eventId),
      await attendee(eventId),
    ];
    const question = await ask(eventId, author);
    expect(await codeOf(report(eventId, question.id, author))).toBe('question.own_report');
    expect((await report(eventId, question.id, first, 'spam')).state).toBe('open');
    expect((await report(eventId, question.id, first)).state).toBe('open'); // again: counts nothing
    expect((await report(eventId, question.id, second)).state).toBe('pending'); // the threshold: held
    expect(ids(await list({ eventId }))).toEqual([]);
    // Held by reports, it was public: it may still be reported.
    expect((await report(eventId, question.id, third)).state).toBe('pending');
    expect(await moderate(eventId, question.id, 'approve')).toMatchObject({ state: 'open', reports: 3 });
    expect((await report(eventId, question.id, fourth)).state).toBe('open'); // cleared: not held again
    expect(await announced(question.id)).toEqual([
      T.questionSubmitted,
      `${T.questionReported} (staff)`,
      `${T.questionReported} (staff)`,
      T.questionHeld,
      `${T.questionReported} (staff)`,
      T.questionApproved,
      `${T.questionReported} (staff)`,
    ]);

    await moderate(eventId, question.id, 'dismiss');
    expect(await codeOf(report(eventId, question.id, first))).toBe('question.invalid_transition');
  });

  it('lists by upvotes or by age a page at a time; staff see reports; a blocked agent’s open questions leave public view', async () => {
    const eventId = await liveEvent();
    const [a, b, c] = [await attendee(eventId), await attendee(eventId), await attendee(eventId)];
    const q1 = await ask(eventId, a, 'First');
    const q2 = await ask(eventId, b, 'Second');
    const q3 = await ask(eventId, c, 'Third');
    await upvote(eventId, q2.id, a);
    await upvote(eventId, q2.id, c);
    await upvote(eventId, q3.id, a);

    const top = await list({ eventId, limit: 2 });
    expect(ids(top)).toEqual([q2.id, q3.id]);
    const rest = await list({ eventId, limit: 2, cursor: top.nextCursor! });
    expect([ids(rest), rest.nextCursor]).toEqual([[q1.id], null]);
    const newest = await list({ eventId, sort: 'new', limit: 2 });
    expect(ids(newest)).toEqual([q3.id, q2.id]);
    expect(ids(await list({ eventId, sort: 'new', cursor: newest.nextCursor! }))).toEqual([q1.id]);
    expect((await list({ eventId })).items[0]).not.toHaveProperty('reports');
    expect((await list({ eventId }, host)).items[0]).toHaveProperty('reports', 0);

    await engagement().send(Blocks.set, { eventId, agentId: b, blocked: true }, moderator);
    expect(ids(await list({ eventId }))).toEqual([q3.id, q1.id]);
    expect(ids(await list({ eventId }, moderator))).toEqual([q2.id, q3.id, q1.id]);
    expect(await codeOf(list({ eventId: randomUUID() }))).toBe('event.not_found');
  });

  it('refuses every write authorized just before the end, once the stage has closed', async () => {
    const eventId = await liveEvent();
    const [author, other] = [await attendee(eventId), await attendee(eventId)];
    const [question, promotable] = [await ask(eventId, author), await ask(eventId, author, 'Later?')];
    await engagement().deliver(
      change(eventId, EventTopics.ended, { status: 'past', endedAt: new Date().toISOString() }),
    );
    // As if each write had been authorized a moment before the end was applied: the standing says live.
    await engagement().query(`UPDATE engagement.events SET status = 'live' WHERE event_id = $1`, [eventId]);
    const ended = async (request: Promise<unknown>) => {
      const refusal = await refusalOf(request);
      return `${refusal.code}: ${refusal.message}`;
    };
    expect(await ended(ask(eventId, other))).toBe('question.closed: The event has ended');
    expect(await ended(upvote(eventId, question.id, other))).toBe('question.closed: The event has ended');
    expect(await ended(report(eventId, question.id, other))).toBe('question.closed: The event has ended');
    expect(await ended(withdraw(eventId, question.id, author))).toBe('question.closed: The event has ended');
    expect(await ended(moderate(eventId, question.id, 'dismiss'))).toBe(
      'question.closed: The event has ended',
    );
    expect(await ended(moderate(eventId, promotable.id, 'promote'))).toBe(
      'stage.closed: The event has ended',
    );
    expect(await ended(engagement().send(Stage.post, { eventId, body: 'Late' }, host))).toBe(
      'stage.closed: The event has ended',
    );
    expect(
      await ended(
        engagement().send(Polls.open, { eventId, question: 'Late?', options: ['yes', 'no'] }, host),
      ),
    ).toBe('poll.not_live: The event has ended');
    expect(await announced(question.id)).toEqual([T.questionSubmitted]);
  });
});
