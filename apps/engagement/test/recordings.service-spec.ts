// The recording a page at a time (src/recordings/): each of its lists (stage, questions, polls,
// attendees) is read `limit` at a time from where the cursor left it, so no read of a long event
// is unbounded. The stand-ins and events are test/fixtures.ts's.
import {
  Blocks,
  EventTopics,
  Polls,
  Questions,
  Recordings,
  Stage,
  type RecordingView,
} from '@townhall/contracts';
import { refusalOf } from '@townhall/testing/service';
import { EngagementFixtures } from './fixtures.js';

describe('engagement service: the recording, a page at a time', () => {
  const { engagement, host, moderator, liveEvent, attendee, ask, change } =
    new EngagementFixtures().forSpec();

  const read = (eventId: string, page: { limit?: number; cursor?: string } = {}) =>
    engagement().send(Recordings.get, { eventId, ...page });

  it('pages stage, questions, polls and attendees together, each list whole and in order once read to the end', async () => {
    const eventId = await liveEvent();
    const askers = [await attendee(eventId), await attendee(eventId), await attendee(eventId)];
    const blocked = await attendee(eventId);
    for (const body of ['One', 'Two', 'Three', 'Four', 'Five'])
      await engagement().send(Stage.post, { eventId, body }, host);
    for (const [index, asker] of askers.entries()) await ask(eventId, asker, `Q${index + 1}`);
    await ask(eventId, blocked, 'Left out');
    await engagement().send(Blocks.set, { eventId, agentId: blocked, blocked: true }, moderator);
    for (const question of ['A?', 'B?', 'C?'])
      await engagement().send(Polls.open, { eventId, question, options: ['yes', 'no'] }, host);
    await engagement().deliver(
      change(eventId, EventTopics.ended, { status: 'past', endedAt: new Date().toISOString() }),
    );
    await engagement().send(Recordings.publish, { eventId, summary: 'Paged' }, host);

    const whole = await read(eventId, { limit: 500 });
    expect(whole.nextCursor).toBeNull();
    expect(whole.transcript.stage.map((message) => message.body)).toEqual([
      'One',
      'Two',
      'Three',
      'Four',
      'Five',
    ]);
    expect(whole.transcript.questions.map((question) => question.body)).toEqual(['Q1', 'Q2', 'Q3']);
    expect(whole.transcript.polls).toHaveLength(3);
    expect(whole.transcript.attendance).toEqual({
      ticketsIssued: 4,
      attendees: [...askers, blocked].sort(),
    });

    const pages: RecordingView[] = [];
    let cursor: string | undefined;
    do {
      const page = await read(eventId, { limit: 2, ...(cursor ? { cursor } : {}) });
      pages.push(page);
      expect(page.transcript.stage.length).toBeLessThanOrEqual(2);
      expect(page.transcript.attendance.attendees.length).toBeLessThanOrEqual(2);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(pages).toHaveLength(3); // five stage messages, two at a time
    const joined = (list: (page: RecordingView) => unknown[]) => pages.flatMap(list);
    expect(joined((page) => page.transcript.stage)).toEqual(whole.transcript.stage);
    // The blocked agent's question is the fourth asked: the second page holds Q3 alone.
    expect(joined((page) => page.transcript.questions)).toEqual(whole.transcript.questions);
    expect(joined((page) => page.transcript.polls)).toEqual(whole.transcript.polls);
    expect(joined((page) => page.transcript.attendance.attendees)).toEqual(
      whole.transcript.attendance.attendees,
    );
    for (const page of pages) {
      expect(page.transcript.agenda).toEqual(whole.transcript.agenda);
      expect(page.transcript.attendance.ticketsIssued).toBe(4);
      expect([page.summary, page.published]).toEqual(['Paged', true]);
    }

    // A page reads as many statements however long the event was.
    const statements = async (limit: number) =>
      (await engagement().statementsDuring(() => read(eventId, { limit }))).statements.length;
    expect(await statements(1)).toBe(await statements(500));
  });

  it('refuses a cursor it did not give and a limit out of 1-500 (400), and the first page is 100', async () => {
    const eventId = await liveEvent();
    await engagement().send(Questions.submit, { eventId, body: 'Before the end' }, await attendee(eventId));
    await engagement().deliver(
      change(eventId, EventTopics.ended, { status: 'past', endedAt: new Date().toISOString() }),
    );
    await engagement().send(Recordings.publish, { eventId }, host);
    const first = await read(eventId);
    expect([first.transcript.questions.length, first.nextCursor]).toEqual([1, null]);

    const forged = (position: unknown) => Buffer.from(JSON.stringify(position)).toString('base64url');
    for (const cursor of [
      'garbage',
      forged({ s: -1, q: 0, p: 0, a: '' }),
      forged({ s: 0, q: 0, p: 0 }),
      forged({ s: 0, q: 0, p: 0, a: '', x: 1 }),
    ]) {
      const refusal = await refusalOf(read(eventId, { cursor }));
      expect([cursor, refusal.code, refusal.status]).toEqual([cursor, 'validation.failed', 400]);
    }
    for (const limit of [0, 501])
      expect((await refusalOf(read(eventId, { limit }))).code).toBe('validation.failed');
    // Past the end of every list: an empty last page.
    const beyond = await read(eventId, { cursor: forged({ s: 9, q: 9, p: 9, a: '~' }) });
    expect([beyond.transcript.questions, beyond.transcript.attendance.attendees, beyond.nextCursor]).toEqual([
      [],
      [],
      null,
    ]);
  });
});
