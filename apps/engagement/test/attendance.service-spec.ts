// Attendance and engagement's part of the report (docs/product.md "The report"), on the service alone
// (test/fixtures.ts): gateways' presence snapshots and writes, an event going live and ending, the
// report the host and moderators read. The service's clock is the process's: these tests fake Date
// alone (every timer stays real, so Postgres, the transport and the outbox run as ever) and set it
// before each step, so minutes are asserted to the millisecond.
import { jest } from '@jest/globals';
import { ALL_BUT_DATE } from '@townhall/testing';
import { generateAgentKey } from '@townhall/auth';
import {
  EventTopics,
  Polls,
  Questions,
  Reports,
  Stage,
  type EngagementAnswer,
  type Presence,
} from '@townhall/contracts';
import { refusalOf } from '@townhall/testing/service';
import { EngagementFixtures } from './fixtures.js';

/** A whole minute: every bucket of the intervals below starts on it. */
const T0 = Date.parse('2031-03-04T19:00:00.000Z');
const SECOND = 1_000;
const iso = (ms: number) => new Date(T0 + ms).toISOString();

describe('engagement service: attendance and the report', () => {
  const world = new EngagementFixtures().forSpec();
  const { engagement, host, moderator, liveEvent, change, attendee, ask } = world;

  /** The service's clock (and this process's Date) at T0 + `ms`. */
  const at = (ms: number) => jest.setSystemTime(T0 + ms);
  beforeEach(() => {
    jest.useFakeTimers({
      now: T0,
      doNotFake: [...ALL_BUT_DATE],
    });
  });
  afterEach(() => jest.useRealTimers());

  /** A gateway's snapshot of one event's streams. */
  const snapshot = (
    gatewayId: string,
    eventId: string,
    agentIds: string[],
    viewers: number,
    intervalMs = 10 * SECOND,
  ) =>
    engagement().send(Reports.presence, { gatewayId, intervalMs, events: [{ eventId, agentIds, viewers }] });
  const report = (eventId: string, caller = host) =>
    engagement().send(Reports.engagement, { eventId }, caller);
  const goLive = (eventId: string, ms: number) =>
    engagement().deliver(change(eventId, EventTopics.started, { status: 'live', startedAt: iso(ms) }));
  const end = (eventId: string, ms: number) =>
    engagement().deliver(change(eventId, EventTopics.ended, { status: 'past', endedAt: iso(ms) }));
  const attendanceOf = (answer: EngagementAnswer) => answer.report.attendance;

  it('counts a ticket holder present while the event is live and a signed stream of theirs is open, to the millisecond, streams overlapping on two gateways once', async () => {
    const eventId = await liveEvent('scheduled');
    const [ada, bob] = [await attendee(eventId), await attendee(eventId)];
    const guest = generateAgentKey().agentId; // watches without a ticket: not an attendee

    // Before the event is live: recorded, counted only from when it went live.
    at(0);
    await snapshot('g1', eventId, [ada], 2);
    at(10 * SECOND);
    await goLive(eventId, 10 * SECOND);
    at(20 * SECOND);
    await snapshot('g2', eventId, [ada, bob], 2); // ada's second stream, on another gateway
    at(30 * SECOND);
    await snapshot('g1', eventId, [ada, guest], 3);
    at(45_500);
    await snapshot('g1', eventId, [], 1); // ada and the guest left g1
    at(50 * SECOND);
    await snapshot('g2', eventId, [bob], 1); // and ada g2
    at(71 * SECOND);
    await snapshot('g2', eventId, [], 0);
    at(100 * SECOND);
    await end(eventId, 100 * SECOND);
    at(200 * SECOND);
    await snapshot('g2', eventId, [bob], 1); // after the end: not presence

    const attendance = attendanceOf(await report(eventId));
    expect(attendance.present).toBe(2);
    expect(attendance.byAgent).toEqual([
      // 20 s to 71 s
      { agentId: bob, minutes: 0.85, firstSeenAt: iso(20 * SECOND), lastSeenAt: iso(71 * SECOND) },
      // g1 from 0 (clipped to 10 s) to 45.5 s, g2 from 20 s to 50 s: 40 s once
      { agentId: ada, minutes: 0.667, firstSeenAt: iso(10 * SECOND), lastSeenAt: iso(50 * SECOND) },
    ]);
  });

  it("samples concurrent viewers per bucket, every gateway's summed, keeping a spike between ticks, within the live window", async () => {
    const eventId = await liveEvent('scheduled');
    at(-5 * SECOND);
    await snapshot('g1', eventId, [], 20); // before the event was live
    at(0);
    await goLive(eventId, 0);
    at(1 * SECOND);
    await snapshot('g1', eventId, [], 3);
    at(2 * SECOND);
    await snapshot('g2', eventId, [], 5);
    at(4 * SECOND);
    await snapshot('g1', eventId, [], 7); // a spike between two ticks
    at(8 * SECOND);
    await snapshot('g1', eventId, [], 2);
    at(11 * SECOND);
    await snapshot('g1', eventId, [], 4);
    at(12 * SECOND);
    await snapshot('g2', eventId, [], 1);
    at(15 * SECOND);

    const attendance = attendanceOf(await report(eventId));
    expect(attendance.viewersOverTime).toEqual([
      { at: iso(0), viewers: 12 },
      { at: iso(10 * SECOND), viewers: 5 },
    ]);
    expect(attendance.peakConcurrent).toBe(12);
    expect(attendance.present).toBe(0);
  });

  it('ends the sessions of a gateway gone silent for three intervals at its last report, and starts anew when it reports again', async () => {
    const eventId = await liveEvent('scheduled');
    const ada = await attendee(eventId);
    at(0);
    await goLive(eventId, 0);
    for (const ms of [0, 1_000, 2_000]) {
      at(ms);
      await snapshot('g1', eventId, [ada], 1, 1_000);
    }
    // A snapshot within half an interval of the last (a prompt one) leaves last_seen_at as it was.
    at(2_200);
    await snapshot('g1', eventId, [ada], 2, 1_000);
    const [seen] = await engagement().query<{ last_seen_at: Date }>(
      'SELECT last_seen_at FROM engagement.stream_sessions WHERE event_id = $1',
      [eventId],
    );
    expect(seen!.last_seen_at.toISOString()).toBe(iso(2_000));
    // 2.5 s: silent for less than three intervals, still there.
    at(2_500);
    expect(attendanceOf(await report(eventId)).byAgent).toEqual([
      { agentId: ada, minutes: 0.042, firstSeenAt: iso(0), lastSeenAt: iso(2_500) },
    ]);
    // A minute later: the gateway died at its last report.
    at(60 * SECOND);
    expect(attendanceOf(await report(eventId)).byAgent).toEqual([
      { agentId: ada, minutes: 0.033, firstSeenAt: iso(0), lastSeenAt: iso(2_000) },
    ]);
    // It reports again: the silence is not presence (2 s, then 60 s to 62 s).
    await snapshot('g1', eventId, [ada], 1, 1_000);
    at(62 * SECOND);
    expect(attendanceOf(await report(eventId)).byAgent).toEqual([
      { agentId: ada, minutes: 0.067, firstSeenAt: iso(0), lastSeenAt: iso(62 * SECOND) },
    ]);
    const sessions = await engagement().query<{ started_at: Date; ended_at: Date | null }>(
      `SELECT started_at, ended_at FROM engagement.stream_sessions WHERE event_id = $1 ORDER BY started_at`,
      [eventId],
    );
    expect(sessions).toEqual([
      { started_at: new Date(iso(0)), ended_at: new Date(iso(2_000)) },
      { started_at: new Date(iso(60 * SECOND)), ended_at: null },
    ]);
  });

  it('counts a write while the event is live as presence, even of no length: a question, an upvote, a ballot', async () => {
    const eventId = await liveEvent('scheduled');
    const [ada, bob] = [await attendee(eventId), await attendee(eventId)];
    at(0);
    const early = await ask(eventId, ada, 'Asked before the start'); // not while live: not presence
    at(10 * SECOND);
    await goLive(eventId, 10 * SECOND);
    const poll = await engagement().send(
      Polls.open,
      { eventId, question: 'Ship it?', options: ['yes', 'no'] },
      host,
    );
    at(20 * SECOND);
    const question = await ask(eventId, bob);
    at(30 * SECOND);
    await engagement().send(Questions.upvote, { eventId, questionId: question.id, up: true }, ada);
    at(40 * SECOND);
    await engagement().send(Polls.vote, { eventId, pollId: poll.id, optionIds: [poll.options[0]!.id] }, bob);
    at(45 * SECOND);
    await engagement().send(Stage.post, { eventId, body: 'Welcome' }, host); // the host holds no ticket
    at(50 * SECOND);

    const attendance = attendanceOf(await report(eventId));
    expect(attendance.present).toBe(2);
    expect(attendance.byAgent).toEqual(
      [
        { agentId: ada, minutes: 0, firstSeenAt: iso(30 * SECOND), lastSeenAt: iso(30 * SECOND) },
        { agentId: bob, minutes: 0, firstSeenAt: iso(20 * SECOND), lastSeenAt: iso(40 * SECOND) },
      ].sort((a, b) => (a.agentId < b.agentId ? -1 : 1)),
    );
    expect(early.createdAt).toBe(iso(0));
    // Every write is on record at its time: a question by its own row, the others as sessions of no length.
    const writes = await engagement().query<{ agent_id: string; started_at: Date }>(
      `SELECT agent_id, started_at FROM engagement.stream_sessions
        WHERE event_id = $1 AND gateway_id = 'write' AND ended_at = started_at
       UNION ALL SELECT author_id, created_at FROM engagement.questions WHERE event_id = $1
       ORDER BY started_at`,
      [eventId],
    );
    expect(writes.map((write) => [write.agent_id, write.started_at.toISOString()])).toEqual([
      [ada, iso(0)],
      [bob, iso(20 * SECOND)],
      [ada, iso(30 * SECOND)],
      [bob, iso(40 * SECOND)],
      [host, iso(45 * SECOND)],
    ]);
  });

  it("reports every question, every poll with its real results, the stage's messages and each agent's part", async () => {
    const eventId = await liveEvent('live', { startedAt: iso(0) });
    const [ada, bob, cyd] = [await attendee(eventId), await attendee(eventId), await attendee(eventId)];
    const first = await ask(eventId, ada, 'First?');
    at(1);
    const second = await ask(eventId, bob, 'Second?');
    at(2);
    const third = await ask(eventId, cyd, 'Third?');
    const upvote = (questionId: string, voter: string) =>
      engagement().send(Questions.upvote, { eventId, questionId, up: true }, voter);
    await upvote(first.id, bob);
    await upvote(first.id, cyd);
    await upvote(third.id, ada);
    const moderate = (questionId: string, action: 'promote' | 'answer' | 'dismiss') =>
      engagement().send(Questions.moderate, { eventId, questionId, action }, moderator);
    await moderate(first.id, 'promote');
    await moderate(first.id, 'answer');
    await moderate(second.id, 'dismiss');

    const hidden = await engagement().send(
      Polls.open,
      { eventId, question: 'Ship it?', options: ['yes', 'no'], resultsVisibility: 'after_close' },
      host,
    );
    const live = await engagement().send(
      Polls.open,
      { eventId, question: 'Again?', options: ['a', 'b'] },
      moderator,
    );
    const vote = (pollId: string, optionId: string, voter: string) =>
      engagement().send(Polls.vote, { eventId, pollId, optionIds: [optionId] }, voter);
    await vote(hidden.id, hidden.options[0]!.id, ada);
    await vote(hidden.id, hidden.options[1]!.id, bob);
    await vote(hidden.id, hidden.options[0]!.id, cyd);
    await vote(live.id, live.options[1]!.id, ada);

    await engagement().send(Stage.post, { eventId, body: 'Welcome' }, host);
    const removed = await engagement().send(Stage.post, { eventId, body: 'Oops' }, host);
    await engagement().send(Stage.hide, { eventId, messageId: removed.id }, moderator);

    const answer = await report(eventId, moderator);
    expect(answer.report.questions).toEqual({
      asked: 3,
      promoted: 1,
      upvotes: 3,
      top: [
        { id: first.id, authorId: ada, body: 'First?', upvotes: 2, state: 'answered' },
        { id: third.id, authorId: cyd, body: 'Third?', upvotes: 1, state: 'open' },
        { id: second.id, authorId: bob, body: 'Second?', upvotes: 0, state: 'dismissed' },
      ],
    });
    expect(answer.report.polls).toEqual([
      {
        id: hidden.id,
        question: 'Ship it?',
        status: 'open',
        ballots: 3,
        options: [
          { id: hidden.options[0]!.id, label: 'yes', votes: 2 },
          { id: hidden.options[1]!.id, label: 'no', votes: 1 },
        ],
      },
      {
        id: live.id,
        question: 'Again?',
        status: 'open',
        ballots: 1,
        options: [
          { id: live.options[0]!.id, label: 'a', votes: 0 },
          { id: live.options[1]!.id, label: 'b', votes: 1 },
        ],
      },
    ]);
    // The promoted question on the stage is one of the questions.
    expect(answer.report.stage).toEqual({ messages: 2 });
    expect(answer.agents).toEqual(
      [
        { agentId: ada, questionsAsked: 1, votesCast: 2 },
        { agentId: bob, questionsAsked: 1, votesCast: 1 },
        { agentId: cyd, questionsAsked: 1, votesCast: 1 },
      ].sort((a, b) => (a.agentId < b.agentId ? -1 : 1)),
    );
  });

  it("is the host's and the moderators' only: anyone else is 403 role.forbidden", async () => {
    const eventId = await liveEvent('live', { startedAt: iso(0) });
    const ada = await attendee(eventId);
    expect((await refusalOf(report(eventId, ada))).code).toBe('role.forbidden');
    expect((await refusalOf(report(eventId, generateAgentKey().agentId))).code).toBe('role.forbidden');
    expect((await refusalOf(engagement().send(Reports.engagement, { eventId }))).code).toBe('auth.malformed');
    await expect(report(eventId, moderator)).resolves.toBeDefined();
    await expect(report(eventId, host)).resolves.toMatchObject({
      report: {
        attendance: { present: 0, peakConcurrent: 0, viewersOverTime: [], byAgent: [] },
        stage: { messages: 0 },
      },
      agents: [],
    });
  });

  it('has no attendance for an event that never went live, and asks the events service when the projection lacks the start', async () => {
    const scheduled = await liveEvent('scheduled');
    const ada = await attendee(scheduled);
    at(0);
    await snapshot('g1', scheduled, [ada], 1);
    at(60 * SECOND);
    expect(attendanceOf(await report(scheduled))).toEqual({
      present: 0,
      peakConcurrent: 0,
      viewersOverTime: [],
      byAgent: [],
    });

    // Live since 0 at the events service; the projection saw the event before it kept starts.
    const live = await liveEvent('live', { startedAt: iso(0) });
    const bob = await attendee(live);
    await engagement().query('UPDATE engagement.events SET live_at = NULL WHERE event_id = $1', [live]);
    at(0);
    await snapshot('g1', live, [bob], 1);
    at(25 * SECOND);
    expect(attendanceOf(await report(live)).byAgent).toEqual([
      { agentId: bob, minutes: 0.417, firstSeenAt: iso(0), lastSeenAt: iso(25 * SECOND) },
    ]);
    const [row] = await engagement().query<{ live_at: Date }>(
      'SELECT live_at FROM engagement.events WHERE event_id = $1',
      [live],
    );
    expect(row!.live_at.toISOString()).toBe(iso(0));
  });

  it('answers how many events a snapshot named, and refuses the id reserved for writes', async () => {
    const eventId = await liveEvent();
    const presence: Presence = {
      gatewayId: 'g1',
      intervalMs: 15_000,
      events: [
        { eventId, agentIds: [], viewers: 1 },
        { eventId: 'not-an-event', agentIds: [], viewers: 1 },
      ],
    };
    await expect(engagement().send(Reports.presence, presence)).resolves.toEqual({ events: 1 });
    expect(
      (await refusalOf(engagement().send(Reports.presence, { ...presence, gatewayId: 'write' }))).code,
    ).toBe('validation.failed');
  });
});
