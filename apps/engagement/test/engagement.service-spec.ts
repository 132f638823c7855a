// The engagement service on its own (the service tier: libs/testing/src/service.ts), and how it
// decides who may act from its projections: events and ticketing are stand-ins (test/fixtures.ts)
// that count every request they receive, and domain events reach engagement's consumers only when
// a test delivers them.
import { randomUUID } from 'node:crypto';
import { generateAgentKey } from '@townhall/auth';
import { EngagementTopics, EventTopics, Polls, Questions, Stage } from '@townhall/contracts';
import { waitFor } from '@townhall/testing';
import { refusalOf, type ServiceHarness } from '@townhall/testing/service';
import { EngagementFixtures } from './fixtures.js';

describe('engagement service: authorization from its projections', () => {
  let engagement: ServiceHarness;
  const world = new EngagementFixtures();
  const { host, moderator, asked, cloudEvent, known, change, liveEvent, ticket, ask } = world;

  beforeAll(async () => {
    engagement = await world.start();
  });
  afterAll(async () => {
    await engagement?.stop();
  });
  beforeEach(() => {
    asked.access = 0;
    asked.attendance = 0;
  });

  it('authorizes questions, upvotes, moderation, stage posts, polls and ballots with no request to another service', async () => {
    const eventId = await liveEvent();
    const [asker, voter] = [generateAgentKey().agentId, generateAgentKey().agentId];
    await engagement.deliver(ticket(eventId, asker).issued);
    await engagement.deliver(ticket(eventId, voter).issued);

    const question = await ask(eventId, asker, 'How does the outbox work?');
    await engagement.send(Questions.upvote, { eventId, questionId: question.id, up: true }, voter);
    await engagement.send(
      Questions.moderate,
      { eventId, questionId: question.id, action: 'promote' },
      moderator,
    );
    await engagement.send(Stage.post, { eventId, body: 'Welcome' }, host);
    const poll = await engagement.send(
      Polls.open,
      { eventId, question: 'Ship it?', options: ['yes', 'no'] },
      host,
    );
    const voted = await engagement.send(
      Polls.vote,
      { eventId, pollId: poll.id, optionIds: [poll.options[0]!.id] },
      voter,
    );
    expect(voted.options[0]).toMatchObject({ votes: 1 });
    expect(asked).toEqual({ access: 0, attendance: 0 });

    // The question is in the table as it was answered, and announced once, with the same data.
    const [row] = await engagement.query<{ body: string; created_at: Date }>(
      'SELECT body, created_at FROM engagement.questions WHERE id = $1',
      [question.id],
    );
    expect(row).toEqual({ body: 'How does the outbox work?', created_at: new Date(question.createdAt) });
    const announced = await waitFor('the domain event', async () => {
      const found = engagement.published.filter((e) => e.type === EngagementTopics.questionSubmitted);
      return found.length > 0 ? found : undefined;
    });
    expect(announced).toEqual([expect.objectContaining({ subject: eventId, data: question })]);
  });

  it('refuses a cancelled ticket from the first request after the cancellation is applied', async () => {
    const eventId = await liveEvent();
    const asker = generateAgentKey().agentId;
    const held = ticket(eventId, asker);
    await engagement.deliver(held.issued);
    await ask(eventId, asker);

    const cancelled = held.cancel(); // ticketing has cancelled it; the domain event is on its way
    await ask(eventId, asker); // the window: the projection still shows the ticket
    expect(asked.attendance).toBe(0);
    await engagement.deliver(cancelled);
    expect((await refusalOf(ask(eventId, asker))).code).toBe('role.forbidden');
    // The refusal was confirmed with ticketing, which agrees.
    expect(asked.attendance).toBe(1);
  });

  it('refuses a removed moderator from the first request after the change is applied, and never goes back to an older version', async () => {
    const eventId = await liveEvent();
    const asker = generateAgentKey().agentId;
    await engagement.deliver(ticket(eventId, asker).issued);
    const question = await ask(eventId, asker);
    const promote = () =>
      engagement.send(Questions.moderate, { eventId, questionId: question.id, action: 'dismiss' }, moderator);

    const appointed = cloudEvent(EventTopics.updated, eventId, known(eventId));
    const removed = change(eventId, EventTopics.updated, { moderators: [] });
    await engagement.deliver(removed);
    // Delivered late and out of order: the older version (still listing the moderator) is ignored.
    await engagement.deliver(appointed);
    expect((await refusalOf(promote())).code).toBe('role.forbidden');
    expect(asked.access).toBe(1); // the refusal, confirmed with the events service
    const [row] = await engagement.query<{ moderators: string[]; version: number }>(
      'SELECT moderators, version FROM engagement.events WHERE event_id = $1',
      [eventId],
    );
    expect(row).toEqual({ moderators: [], version: 2 });
  });

  it('honours a right granted at its owner before the domain event arrives (asking the owners)', async () => {
    const eventId = await liveEvent();
    const speaker = generateAgentKey().agentId;
    const appointed = change(eventId, EventTopics.updated, { speakers: [speaker] });
    // Not delivered yet: the projection says "no role"; the events service says "speaker".
    await engagement.send(Stage.post, { eventId, body: 'First words' }, speaker);
    expect(asked.access).toBe(1);
    await engagement.deliver(appointed);
    await engagement.send(Stage.post, { eventId, body: 'Second words' }, speaker);
    expect(asked.access).toBe(1); // now from the projection

    // A ticket bought a moment ago counts too, before ticket.issued arrives.
    const buyer = generateAgentKey().agentId;
    const bought = ticket(eventId, buyer);
    await ask(eventId, buyer);
    expect(asked.attendance).toBe(1);
    await engagement.deliver(bought.issued);
    await ask(eventId, buyer);
    expect(asked.attendance).toBe(1);
  });

  it('learns an event it has not seen from the events service once, then from its projection', async () => {
    const eventId = await liveEvent();
    await engagement.query('DELETE FROM engagement.events WHERE event_id = $1', [eventId]); // as before an upgrade
    await engagement.send(Stage.post, { eventId, body: 'One' }, host);
    await engagement.send(Stage.post, { eventId, body: 'Two' }, host);
    expect(asked.access).toBe(1);
    expect(
      (await refusalOf(engagement.send(Stage.post, { eventId: randomUUID(), body: 'x' }, host))).code,
    ).toBe('event.not_found');
  });

  it('closes questions once the end is applied; until then the event is still open here', async () => {
    const eventId = await liveEvent();
    const asker = generateAgentKey().agentId;
    await engagement.deliver(ticket(eventId, asker).issued);
    const ended = change(eventId, EventTopics.ended, { status: 'past', endedAt: new Date().toISOString() });
    await ask(eventId, asker, 'Just in time?'); // accepted: it will be in the recording
    await engagement.deliver(ended);
    expect((await refusalOf(ask(eventId, asker, 'Too late?'))).code).toBe('question.closed');
    const [recording] = await engagement.query<{ transcript: { questions: Array<{ body: string }> } }>(
      'SELECT transcript FROM engagement.recordings WHERE event_id = $1',
      [eventId],
    );
    expect(recording!.transcript.questions.map((q) => q.body)).toEqual(['Just in time?']);
  });

  it('keeps the per-minute limit on questions under concurrency, writing nothing for a refusal', async () => {
    const eventId = await liveEvent();
    const asker = generateAgentKey().agentId;
    await engagement.deliver(ticket(eventId, asker).issued);
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => ask(eventId, asker, `Q${i}`)),
    );
    const refused = results.filter((r) => r.status === 'rejected');
    expect(results.length - refused.length).toBe(5); // QUESTIONS_PER_MINUTE's default
    for (const r of refused)
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'rate.limited' });
    const [count] = await engagement.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM engagement.questions WHERE event_id = $1',
      [eventId],
    );
    expect(count!.n).toBe(5);
  });

  it("decides a repeat asker's question on the standing read last: one statement; its questions at once share one read", async () => {
    const eventId = await liveEvent();
    const asker = generateAgentKey().agentId;
    await engagement.deliver(ticket(eventId, asker).issued);
    const statementsOf = async (work: () => Promise<unknown>) =>
      (await engagement.statementsDuring(work)).statements.map((sql) =>
        /engagement\.standing/.test(sql) && !/submit_question/.test(sql)
          ? 'read'
          : /submit_question/.test(sql)
            ? 'submit'
            : sql,
      );
    expect(await statementsOf(() => ask(eventId, asker, 'First'))).toEqual(['read', 'submit']);
    expect(await statementsOf(() => ask(eventId, asker, 'Second'))).toEqual(['submit']);

    // Another asker's three questions at once: one read of its standing, three statements that write.
    const another = generateAgentKey().agentId;
    await engagement.deliver(ticket(eventId, another).issued);
    const together = await statementsOf(() =>
      Promise.all(['A', 'B', 'C'].map((body) => ask(eventId, another, body))),
    );
    expect(together.sort()).toEqual(['read', 'submit', 'submit', 'submit']);
    expect(asked).toEqual({ access: 0, attendance: 0 });
  });

  it('announces only what the domain event catalog says (the AsyncAPI document)', async () => {
    expect(engagement.published.length).toBeGreaterThan(0);
    expect(engagement.offCatalog()).toEqual([]);
  });
});
