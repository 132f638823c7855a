import { EngagementTopics, type EventFieldsInput, type EventView, type PollView } from '@townhall/contracts';
import type { AgentClient } from '@townhall/sdk';
import { DomainEventTap, Topology, problemOf, refusal, waitFor } from '@townhall/testing';
import pg from 'pg';

const HOUR = 3_600_000;

function anEvent(overrides: Partial<EventFieldsInput> = {}): EventFieldsInput {
  const startsAt = new Date(Date.now() + HOUR);
  return {
    title: 'Ask me anything',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 500,
    ...overrides,
  };
}

describe('engagement: stage, Q&A, polls, recordings', () => {
  let topology: Topology;
  let host: AgentClient;
  let tap: DomainEventTap;
  let db: pg.Client;

  beforeAll(async () => {
    topology = await Topology.start();
    host = topology.client();
    tap = await DomainEventTap.start(topology.nats, ['townhall.>']);
    db = new pg.Client({ connectionString: topology.database.url });
    await db.connect();
  });
  afterEach(async () => {
    // The counters, after every test, are exactly the rows they count.
    const { rows } = await db.query<{ upvotes: number; ballots: number; votes: number }>(
      `SELECT
         (SELECT count(*) FROM engagement.questions q
           WHERE q.upvotes <> (SELECT count(*) FROM engagement.question_upvotes u WHERE u.question_id = q.id))::int AS upvotes,
         (SELECT count(*) FROM engagement.polls p
           WHERE p.ballots <> (SELECT count(*) FROM engagement.ballots b WHERE b.poll_id = p.id))::int AS ballots,
         (SELECT count(*) FROM engagement.poll_options o
           WHERE o.votes <> (SELECT count(*) FROM engagement.ballots b WHERE b.poll_id = o.poll_id AND o.id = ANY (b.option_ids)))::int AS votes`,
    );
    expect(rows[0]).toEqual({ upvotes: 0, ballots: 0, votes: 0 });
  });
  afterAll(async () => {
    await db?.end();
    await tap?.stop();
    await topology?.stop();
  });

  /** `count` new agents, each holding a free ticket for the event. */
  async function attendees(eventId: string, count: number): Promise<AgentClient[]> {
    const agents = Array.from({ length: count }, () => topology.client());
    await Promise.all(agents.map((agent) => agent.tickets.rsvp(eventId)));
    return agents;
  }

  it('refuses every role and every state with the right code', async () => {
    const [moderator, speaker, outsider] = [topology.client(), topology.client(), topology.client()];
    const event = await host.events.create(
      anEvent({ moderators: [moderator.agentId], speakers: [speaker.agentId] }),
    );
    const [attendee, asker] = await attendees(event.id, 2);
    const id = event.id;

    // Scheduled: questions yes (pre-questions), stage and polls no.
    expect(await refusal(speaker.stage.post(id, 'too early'))).toEqual({ status: 409, code: 'stage.closed' });
    expect(await refusal(attendee!.stage.post(id, 'hi'))).toEqual({ status: 403, code: 'role.forbidden' });
    const pollBody = { question: 'Tabs or spaces?', options: ['Tabs', 'Spaces'] };
    expect(await refusal(speaker.polls.open(id, pollBody))).toEqual({ status: 409, code: 'poll.not_live' });
    expect(await refusal(outsider.questions.submit(id, 'Can I?'))).toEqual({
      status: 403,
      code: 'role.forbidden',
    });
    const question = await attendee!.questions.submit(id, 'What is next?');
    expect(question).toMatchObject({ authorId: attendee!.agentId, upvotes: 0, state: 'open' });
    // Appointed roles count as attendees without a ticket.
    await speaker.questions.upvote(id, question.id);
    expect(await refusal(attendee!.questions.upvote(id, question.id))).toEqual({
      status: 409,
      code: 'question.own_upvote',
    });
    expect(await refusal(outsider.questions.upvote(id, question.id))).toEqual({
      status: 403,
      code: 'role.forbidden',
    });
    expect(await refusal(moderator.questions.promote(id, question.id))).toEqual({
      status: 409,
      code: 'stage.closed',
    });
    for (const attempt of [
      speaker.questions.dismiss(id, question.id),
      attendee!.questions.answer(id, question.id),
    ]) {
      expect(await refusal(attempt)).toEqual({ status: 403, code: 'role.forbidden' });
    }
    for (const body of ['', ' ', 'x'.repeat(1001)]) {
      expect(await refusal(asker!.questions.submit(id, body))).toEqual({
        status: 400,
        code: 'validation.failed',
      });
    }
    // Five questions a minute per agent per event, then 429.
    const asked = [];
    for (let i = 0; i < 5; i++) asked.push(await asker!.questions.submit(id, `Question ${i}`));
    const limited = await problemOf(asker!.questions.submit(id, 'One more'));
    expect({ status: limited.status, code: limited.code }).toEqual({ status: 429, code: 'rate.limited' });
    expect(limited.headers.get('retry-after')).not.toBeNull();
    // Paging walks the same order as one big page, for both sorts.
    for (const sort of ['top', 'new'] as const) {
      const whole = await host.questions.list(id, { sort, limit: 100 });
      expect(whole.items).toHaveLength(6);
      const first = await host.questions.list(id, { sort, limit: 4 });
      const rest = await host.questions.list(id, { sort, limit: 4, cursor: first.nextCursor! });
      expect([...first.items, ...rest.items].map((q) => q.id)).toEqual(whole.items.map((q) => q.id));
      expect(rest.nextCursor).toBeNull();
    }
    expect((await host.questions.list(id, { sort: 'top' })).items[0]!.id).toBe(question.id);

    // Unknown things.
    const nowhere = '00000000-0000-4000-8000-000000000000';
    expect(await refusal(speaker.stage.post(nowhere, 'hello?'))).toEqual({
      status: 404,
      code: 'event.not_found',
    });
    expect(await refusal(host.stage.list(nowhere))).toEqual({ status: 404, code: 'event.not_found' });
    expect(await refusal(host.questions.list('not-an-id'))).toEqual({ status: 404, code: 'event.not_found' });
    expect(await refusal(speaker.questions.upvote(id, nowhere))).toEqual({
      status: 404,
      code: 'question.not_found',
    });
    expect(await refusal(host.recordings.get(id))).toEqual({ status: 404, code: 'recording.not_found' });
    expect(await refusal(host.recordings.publish(id))).toEqual({ status: 404, code: 'recording.not_found' });

    // Live.
    await host.events.start(id);
    expect(await refusal(attendee!.stage.post(id, 'me too'))).toEqual({
      status: 403,
      code: 'role.forbidden',
    });
    for (const poster of [speaker, moderator, host]) {
      const posted = await poster.request('POST', `/events/${id}/stage`, { body: { body: 'on stage' } });
      expect(posted.status).toBe(201);
    }
    expect(await refusal(attendee!.polls.open(id, pollBody))).toEqual({
      status: 403,
      code: 'role.forbidden',
    });
    expect(
      await refusal(
        speaker.polls.open(id, { ...pollBody, closesAt: new Date(Date.now() - 1000).toISOString() }),
      ),
    ).toEqual({ status: 400, code: 'validation.failed' });
    expect(await refusal(speaker.polls.open(id, { ...pollBody, options: ['Only one'] }))).toEqual({
      status: 400,
      code: 'validation.failed',
    });
    const poll = await speaker.polls.open(id, pollBody);
    const [tabs, spaces] = poll.options.map((option) => option.id);
    expect(await refusal(outsider.polls.vote(id, poll.id, [tabs!]))).toEqual({
      status: 403,
      code: 'role.forbidden',
    });
    for (const choice of [['no-such-option'], [tabs!, spaces!], [tabs!, tabs!]]) {
      expect(await refusal(attendee!.polls.vote(id, poll.id, choice))).toEqual({
        status: 400,
        code: 'validation.failed',
      });
    }
    expect(await refusal(attendee!.polls.vote(id, nowhere, [tabs!]))).toEqual({
      status: 404,
      code: 'poll.not_found',
    });
    await attendee!.polls.vote(id, poll.id, [tabs!]);
    expect(await refusal(attendee!.polls.vote(id, poll.id, [spaces!]))).toEqual({
      status: 409,
      code: 'poll.already_voted',
    });
    expect(await refusal(attendee!.polls.close(id, poll.id))).toEqual({
      status: 403,
      code: 'role.forbidden',
    });
    // A moderator closes a poll a speaker opened.
    expect(await moderator.polls.close(id, poll.id)).toMatchObject({ status: 'closed', ballots: 1 });
    expect(await refusal(speaker.polls.close(id, poll.id))).toEqual({ status: 409, code: 'poll.closed' });
    expect(await refusal(asker!.polls.vote(id, poll.id, [spaces!]))).toEqual({
      status: 409,
      code: 'poll.closed',
    });

    // open -> promoted -> answered; anything else is 409 question.invalid_transition.
    expect(await refusal(moderator.questions.answer(id, question.id))).toEqual({
      status: 409,
      code: 'question.invalid_transition',
    });
    expect(await moderator.questions.promote(id, question.id)).toMatchObject({ state: 'promoted' });
    expect(await refusal(host.questions.promote(id, question.id))).toEqual({
      status: 409,
      code: 'question.invalid_transition',
    });
    expect(await host.questions.answer(id, question.id)).toMatchObject({ state: 'answered' });
    expect(await refusal(moderator.questions.dismiss(id, question.id))).toEqual({
      status: 409,
      code: 'question.invalid_transition',
    });

    // Past: everything is closed, and only the host reads or publishes the recording. Engagement
    // learns of the end from the domain event (its recording is then assembled); from then on
    // its own projection refuses every write.
    await host.events.end(id);
    await waitFor('the recording', () => host.recordings.draft(id));
    expect(await refusal(speaker.stage.post(id, 'encore'))).toEqual({ status: 409, code: 'stage.closed' });
    expect(await refusal(asker!.questions.submit(id, 'Late?'))).toEqual({
      status: 409,
      code: 'question.closed',
    });
    expect(await refusal(speaker.questions.upvote(id, question.id))).toEqual({
      status: 409,
      code: 'question.closed',
    });
    expect(await refusal(speaker.polls.open(id, pollBody))).toEqual({ status: 409, code: 'poll.not_live' });
    expect(await refusal(moderator.questions.promote(id, asked[0]!.id))).toEqual({
      status: 409,
      code: 'stage.closed',
    });
    expect(await refusal(moderator.questions.dismiss(id, asked[0]!.id))).toEqual({
      status: 409,
      code: 'question.closed',
    });
    expect(await refusal(moderator.recordings.draft(id))).toEqual({ status: 403, code: 'role.forbidden' });
    expect(await refusal(moderator.recordings.publish(id))).toEqual({ status: 403, code: 'role.forbidden' });
    expect(await refusal(outsider.recordings.get(id))).toEqual({ status: 404, code: 'recording.not_found' });
  });

  describe('a crowd of 100 attendees', () => {
    let event: EventView;
    let crowd: AgentClient[];

    beforeAll(async () => {
      event = await host.events.create(anEvent());
      crowd = await attendees(event.id, 100);
    });

    it('upvotes one question concurrently, each twice: exactly 100, and a withdrawal makes 99', async () => {
      const [author] = await attendees(event.id, 1);
      const question = await author!.questions.submit(event.id, 'Will it count right?');
      await Promise.all(
        crowd.flatMap((agent) => [
          agent.questions.upvote(event.id, question.id),
          agent.questions.upvote(event.id, question.id),
        ]),
      );
      const top = await host.questions.list(event.id, { sort: 'top' });
      expect(top.items[0]).toMatchObject({ id: question.id, upvotes: 100 });
      expect(await crowd[0]!.questions.withdrawUpvote(event.id, question.id)).toMatchObject({ upvotes: 99 });
      expect(await crowd[0]!.questions.withdrawUpvote(event.id, question.id)).toMatchObject({ upvotes: 99 });
      expect(await crowd[1]!.questions.upvote(event.id, question.id)).toMatchObject({ upvotes: 99 });
    });

    it('casts 100 concurrent ballots: tallies sum to 100, and a second ballot is 409', async () => {
      await host.events.start(event.id);
      const poll = await host.polls.open(event.id, {
        question: 'Which talk next?',
        options: ['Storage', 'Networking', 'Consensus'],
      });
      const ids = poll.options.map((option) => option.id);
      const results = await Promise.all(
        crowd.map((agent, index) => agent.polls.vote(event.id, poll.id, [ids[index % 3]!])),
      );
      expect(results.every((result) => result.status === 'open')).toBe(true);
      const [tallied] = (await host.polls.list(event.id)).items;
      expect(tallied!.ballots).toBe(100);
      expect(tallied!.options.map((option) => option.votes)).toEqual([34, 33, 33]);
      expect(await refusal(crowd[0]!.polls.vote(event.id, poll.id, [ids[1]!]))).toEqual({
        status: 409,
        code: 'poll.already_voted',
      });
    });
  });

  it('gives 20 concurrent posters x 5 messages the sequences 1..100, gap-free, each poster in order', async () => {
    const speakers = Array.from({ length: 20 }, () => topology.client());
    const event = await host.events.create(anEvent({ speakers: speakers.map((s) => s.agentId) }));
    await host.events.start(event.id);
    await Promise.all(
      speakers.map(async (speaker, s) => {
        for (let m = 0; m < 5; m++) await speaker.stage.post(event.id, `speaker ${s} message ${m}`);
      }),
    );
    const all = await host.stage.list(event.id, { limit: 100 });
    expect(all.items.map((message) => message.sequence)).toEqual(
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
    expect(all.nextCursor).toBeNull();
    for (const [s, speaker] of speakers.entries()) {
      const own = all.items.filter((message) => message.authorId === speaker.agentId);
      expect(own.map((message) => message.body)).toEqual(
        [0, 1, 2, 3, 4].map((m) => `speaker ${s} message ${m}`),
      );
    }
    // Polling with ?after= and paging with the cursor see the same order.
    const after = await host.stage.list(event.id, { after: 95 });
    expect(after.items.map((message) => message.sequence)).toEqual([96, 97, 98, 99, 100]);
    const first = await host.stage.list(event.id, { limit: 60 });
    const rest = await host.stage.list(event.id, { limit: 60, cursor: first.nextCursor! });
    expect([...first.items, ...rest.items].map((message) => message.id)).toEqual(all.items.map((m) => m.id));
    expect(rest.nextCursor).toBeNull();
  });

  it('streams every stage message, in order, to a live subscriber connected before the start; a resume misses nothing', async () => {
    const speaker = topology.client();
    const event = await host.events.create(anEvent({ speakers: [speaker.agentId] }));
    const watcher = topology.client();
    const seen: Array<{ id: string; type: string; sequence?: number }> = [];
    const controller = new AbortController();
    let resolveOpen!: () => void;
    const opened = new Promise<void>((resolve) => (resolveOpen = resolve));
    const pump = (async () => {
      for await (const message of watcher.events.live(event.id, {
        signal: controller.signal,
        onOpen: resolveOpen,
      })) {
        const data = message.event.data as { sequence?: number };
        seen.push({
          id: message.id,
          type: message.type,
          ...(data.sequence === undefined ? {} : { sequence: data.sequence }),
        });
      }
    })();
    await opened;
    await host.events.start(event.id);
    for (let i = 1; i <= 10; i++) await speaker.stage.post(event.id, `message ${i}`);
    await waitFor('10 stage messages', async () =>
      seen.filter((m) => m.type === EngagementTopics.stagePosted).length === 10 ? true : undefined,
    );
    controller.abort();
    await pump;
    // (`scheduled` may arrive too: POST /events answers before the outbox relay publishes it.)
    const started = seen.findIndex((m) => m.type === 'townhall.event.started');
    expect(started).toBeGreaterThanOrEqual(0);
    expect(started).toBeLessThan(seen.findIndex((m) => m.type === EngagementTopics.stagePosted));
    expect(seen.filter((m) => m.type === EngagementTopics.stagePosted).map((m) => m.sequence)).toEqual(
      Array.from({ length: 10 }, (_, i) => i + 1),
    );

    // Disconnected after the 5th message: a resume from its id gets exactly the 6th to the 10th.
    const fifth = seen.filter((m) => m.type === EngagementTopics.stagePosted)[4]!;
    const resumed: number[] = [];
    const again = new AbortController();
    for await (const message of watcher.events.live(event.id, {
      signal: again.signal,
      lastEventId: fifth.id,
    })) {
      if (message.type !== EngagementTopics.stagePosted) continue;
      resumed.push((message.event.data as { sequence: number }).sequence);
      if (resumed.length === 5) again.abort();
    }
    expect(resumed).toEqual([6, 7, 8, 9, 10]);
  });

  it('keeps every message accepted while the event ends in the recording, and none after', async () => {
    const speakers = Array.from({ length: 10 }, () => topology.client());
    const event = await host.events.create(anEvent({ speakers: speakers.map((s) => s.agentId) }));
    await host.events.start(event.id);
    let ending: Promise<EventView> | undefined;
    const accepted = await Promise.all(
      speakers.map(async (speaker) => {
        let posted = 0;
        for (let m = 0; m < 50; m++) {
          if (m === 3) ending ??= host.events.end(event.id);
          try {
            await speaker.stage.post(event.id, `message ${m}`);
            posted += 1;
          } catch (error) {
            expect(await refusal(Promise.reject(error))).toEqual({ status: 409, code: 'stage.closed' });
            return posted;
          }
        }
        return posted;
      }),
    );
    await ending;
    const total = accepted.reduce((sum, count) => sum + count, 0);
    const recording = await waitFor('the recording', () => host.recordings.draft(event.id));
    expect(recording.transcript.stage.map((m) => m.sequence)).toEqual(
      Array.from({ length: total }, (_, i) => i + 1),
    );
    expect((await host.stage.list(event.id, { limit: 100 })).items).toHaveLength(total);
  });

  it('runs a whole AMA: pre-questions, stage, promotion, polls, the end, the recording', async () => {
    const [moderator, speaker] = [topology.client(), topology.client()];
    const agenda = [
      { title: 'Intro', startOffsetMinutes: 0, durationMinutes: 10, speakerIds: [speaker.agentId] },
      { title: 'Questions', startOffsetMinutes: 10, durationMinutes: 50 },
    ];
    const event = await host.events.create(
      anEvent({ moderators: [moderator.agentId], speakers: [speaker.agentId], agenda }),
    );
    const id = event.id;
    const [alice, bob] = await attendees(id, 2);

    // Pre-questions while scheduled.
    const q1 = await alice!.questions.submit(id, 'How do you test concurrency?');
    const q2 = await bob!.questions.submit(id, 'Favourite database?');
    await bob!.questions.upvote(id, q1.id);
    expect((await host.questions.list(id, { sort: 'new' })).items.map((q) => q.id)).toEqual([q2.id, q1.id]);
    expect((await host.questions.list(id, { sort: 'top' })).items.map((q) => q.id)).toEqual([q1.id, q2.id]);

    await host.events.start(id);
    const welcome = await speaker.stage.post(id, 'Welcome, everyone');
    expect(welcome).toMatchObject({
      sequence: 1,
      kind: 'message',
      questionId: null,
      authorId: speaker.agentId,
    });
    await alice!.questions.upvote(id, q2.id);
    expect(await moderator.questions.promote(id, q1.id)).toMatchObject({ state: 'promoted', upvotes: 1 });
    const stage = await host.stage.list(id, { after: 1 });
    expect(stage.items).toEqual([
      expect.objectContaining({ sequence: 2, kind: 'question', questionId: q1.id, body: q1.body }),
    ]);

    const secret = await speaker.polls.open(id, {
      question: 'Ship on Friday?',
      options: ['Yes', 'No'],
      resultsVisibility: 'after_close',
    });
    const [yes, no] = secret.options.map((option) => option.id);
    const hidden = await alice!.polls.vote(id, secret.id, [yes!]);
    expect(hidden).toMatchObject({ ballots: null, options: [{ votes: null }, { votes: null }] });
    await bob!.polls.vote(id, secret.id, [no!]);
    expect(await speaker.polls.close(id, secret.id)).toMatchObject({
      status: 'closed',
      ballots: 2,
      options: [{ votes: 1 }, { votes: 1 }],
    });
    const open = await moderator.polls.open(id, {
      question: 'Which topics?',
      options: ['Storage', 'Queues', 'Caches'],
      multiple: true,
    });
    const [storage, queues] = open.options.map((option) => option.id);
    expect(await alice!.polls.vote(id, open.id, [storage!, queues!])).toMatchObject({
      ballots: 1,
      options: [{ votes: 1 }, { votes: 1 }, { votes: 0 }],
    });
    expect(await moderator.questions.answer(id, q1.id)).toMatchObject({ state: 'answered' });
    expect(await moderator.questions.dismiss(id, q2.id)).toMatchObject({ state: 'dismissed' });
    expect(await refusal(host.recordings.get(id))).toEqual({ status: 404, code: 'recording.not_found' });
    // The event's counts follow engagement's domain events (two questions, two polls).
    await waitFor('event counts', async () => {
      const { counts } = await host.events.get(id);
      return counts.questions === 2 && counts.polls === 2 ? counts : undefined;
    });

    // The end closes the open poll and assembles the recording.
    const ended = await host.events.end(id);
    const draft = await waitFor('the recording', () => host.recordings.draft(id));
    expect(draft).toMatchObject({ eventId: id, published: false, publishedAt: null, mediaUrl: null });
    expect(draft.transcript.agenda).toEqual(ended.agenda);
    expect(draft.transcript.stage.map((m) => [m.sequence, m.kind])).toEqual([
      [1, 'message'],
      [2, 'question'],
    ]);
    expect(draft.transcript.questions.map((q) => [q.id, q.state, q.upvotes])).toEqual([
      [q1.id, 'answered', 1],
      [q2.id, 'dismissed', 1],
    ]);
    expect(draft.transcript.polls.map((p) => [p.id, p.status, p.ballots])).toEqual([
      [secret.id, 'closed', 2],
      [open.id, 'closed', 1],
    ]);
    expect(draft.transcript.polls[1]!.options.map((o) => o.votes)).toEqual([1, 1, 0]);
    await waitFor('attendance', async () =>
      (await host.recordings.draft(id)).transcript.attendance.ticketsIssued === 2 ? true : undefined,
    );
    expect((await host.polls.list(id)).items.map((p) => p.status)).toEqual(['closed', 'closed']);
    const firstPoll = await host.polls.list(id, { limit: 1 });
    const secondPoll = await host.polls.list(id, { limit: 1, cursor: firstPoll.nextCursor! });
    expect([firstPoll.items[0]!.id, secondPoll.items[0]!.id, secondPoll.nextCursor]).toEqual([
      secret.id,
      open.id,
      null,
    ]);

    expect(await refusal(host.recordings.get(id))).toEqual({ status: 404, code: 'recording.not_found' });
    const published = await host.request<{ published: boolean }>('POST', `/events/${id}/recording/publish`, {
      body: { mediaUrl: 'https://media.example.com/ama.mp4', summary: 'We talked about testing.' },
    });
    expect(published.status).toBe(200);
    expect(published.data).toMatchObject({
      published: true,
      publishedAt: expect.any(String),
      mediaUrl: 'https://media.example.com/ama.mp4',
      summary: 'We talked about testing.',
      transcript: {
        attendance: { ticketsIssued: 2, attendees: [alice!.agentId, bob!.agentId].sort() },
      },
    });
    expect(await topology.client().recordings.get(id)).toEqual(published.data);

    // Every domain event names the event as its subject (the live stream filters on it).
    const expected: string[] = [
      EngagementTopics.questionSubmitted,
      EngagementTopics.questionUpvoted,
      EngagementTopics.stagePosted,
      EngagementTopics.questionPromoted,
      EngagementTopics.pollOpened,
      EngagementTopics.pollVoted,
      EngagementTopics.pollClosed,
      EngagementTopics.questionAnswered,
      EngagementTopics.questionDismissed,
      EngagementTopics.recordingPublished,
    ];
    const events = await tap.waitFor('the AMA domain events', () =>
      tap.about(id).some((e) => e.type === EngagementTopics.recordingPublished),
    );
    const aboutIt = events.filter((e) => e.type.startsWith('townhall.') && e.subject === id);
    for (const type of expected) expect(aboutIt.map((e) => e.type)).toContain(type);
    const engagementEvents = events.filter(
      (e) => e.source === 'townhall/engagement' && (e.data as { eventId?: string }).eventId === id,
    );
    expect(engagementEvents.every((e) => e.subject === id)).toBe(true);
    const closedByEnd = aboutIt.filter(
      (e) => e.type === EngagementTopics.pollClosed && (e.data as PollView).id === open.id,
    );
    expect(closedByEnd).toHaveLength(1);
  });

  it('closes a poll at its closesAt by itself', async () => {
    const event = await host.events.create(anEvent());
    await host.events.start(event.id);
    const closesAt = new Date(Date.now() + 2_000).toISOString();
    const poll = await host.polls.open(event.id, { question: 'Quick one?', options: ['A', 'B'], closesAt });
    expect(poll).toMatchObject({ status: 'open', closesAt });
    const closed = await waitFor(
      'the poll to close',
      async () => {
        const [current] = (await host.polls.list(event.id)).items;
        return current?.status === 'closed' ? current : undefined;
      },
      6_000,
    );
    expect(closed.closedAt).toBe(closesAt);
    const [voter] = await attendees(event.id, 1);
    expect(await refusal(voter!.polls.vote(event.id, poll.id, [poll.options[0]!.id]))).toEqual({
      status: 409,
      code: 'poll.closed',
    });
  });
});
