import {
  EngagementTopics,
  ModerationRoutes,
  PollRoutes,
  QuestionReportedSchema,
  QuestionRoutes,
  StageRoutes,
  type EventFieldsInput,
  type Page,
  type QuestionView,
  type StageMessageView,
} from '@townhall/contracts';
import type { AgentClient, LiveEvent } from '@townhall/sdk';
import { DomainEventTap, LiveReader, refusal, StandaloneProcess, Topology, waitFor } from '@townhall/testing';
import { AgentClient as Client } from '@townhall/sdk';

const HOUR = 3_600_000;
/** Standalone's audience, fixed before its port is known. */
const AUDIENCE = 'https://moderation.townhall.test';

/** The server under test: its URL and how to make agents for it. */
interface Server {
  client(): AgentClient;
  stop(): Promise<void>;
  /** Distributed only: what reached JetStream. */
  tap?: DomainEventTap;
}

function anEvent(overrides: Partial<EventFieldsInput> = {}): EventFieldsInput {
  const startsAt = new Date(Date.now() + HOUR);
  return {
    title: 'Moderated AMA',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 500,
    ...overrides,
  };
}

const modes: Array<[string, () => Promise<Server>]> = [
  [
    'distributed',
    async () => {
      const topology = await Topology.start();
      const tap = await DomainEventTap.start(topology.nats, [
        'townhall.question.>',
        'townhall.participant.>',
      ]);
      return {
        client: () => topology.client(),
        stop: async () => {
          await tap.stop();
          await topology.stop();
        },
        tap,
      };
    },
  ],
  [
    'standalone',
    async () => {
      const standalone = await StandaloneProcess.start({ PUBLIC_BASE_URL: AUDIENCE });
      return {
        client: () => new Client({ baseUrl: standalone.baseUrl, audience: AUDIENCE }),
        stop: () => standalone.stop(),
      };
    },
  ],
];

describe.each(modes)('moderation (%s)', (_mode, start) => {
  let server: Server;
  let host: AgentClient;
  let moderator: AgentClient;
  let speaker: AgentClient;

  beforeAll(async () => {
    server = await start();
    host = server.client();
    moderator = server.client();
    speaker = server.client();
  });

  afterAll(async () => {
    await server?.stop();
  });

  /** A new event with the three appointed agents, and `count` attendees holding free tickets. */
  async function event(
    overrides: Partial<EventFieldsInput> = {},
    count = 2,
  ): Promise<{ id: string; attendees: AgentClient[] }> {
    const created = await host.events.create(
      anEvent({ moderators: [moderator.agentId], speakers: [speaker.agentId], ...overrides }),
    );
    const attendees = Array.from({ length: count }, () => server.client());
    await Promise.all(attendees.map((agent) => agent.tickets.rsvp(created.id)));
    return { id: created.id, attendees };
  }

  const ask = (agent: AgentClient, eventId: string, body: string) =>
    agent.route(QuestionRoutes.submit, { eventId, body });
  const act = (
    agent: AgentClient,
    action: 'approve' | 'promote' | 'answer' | 'dismiss',
    eventId: string,
    questionId: string,
  ) => agent.route(QuestionRoutes[action], { eventId, questionId, action });
  const upvote = (agent: AgentClient, eventId: string, questionId: string) =>
    agent.route(QuestionRoutes.upvote, { eventId, questionId, up: true });
  const report = (agent: AgentClient, eventId: string, questionId: string, reason?: string) =>
    agent.route(QuestionRoutes.report, { eventId, questionId, ...(reason ? { reason } : {}) });
  const withdraw = (agent: AgentClient, eventId: string, questionId: string) =>
    agent.route(QuestionRoutes.withdrawQuestion, { eventId, questionId });
  const block = (agent: AgentClient, eventId: string, agentId: string) =>
    agent.route(ModerationRoutes.block, { eventId, agentId, blocked: true });
  const unblock = (agent: AgentClient, eventId: string, agentId: string) =>
    agent.route(ModerationRoutes.unblock, { eventId, agentId, blocked: false });
  /** The public read (unsigned), or the same read signed by `agent`. */
  const questions = (eventId: string, query: Record<string, string> = {}, agent?: AgentClient) =>
    (agent ?? host).call<Page<QuestionView>>('GET', `/events/${eventId}/questions`, {
      query,
      signed: agent !== undefined,
    });
  const ids = (page: Page<QuestionView>) => page.items.map((question) => question.id);

  it('pre-moderation: a pending question is seen by its author and the moderators only, until approved', async () => {
    const { id, attendees } = await event({ moderation: { questions: 'pre', reportThreshold: 3 } });
    const [author, other] = attendees as [AgentClient, AgentClient];
    const live = await LiveReader.open(server.client(), id);
    try {
      const question = await ask(author, id, 'Held for review?');
      expect(question.state).toBe('pending');

      // Public reads never show it, whatever the query.
      expect(ids(await questions(id))).toEqual([]);
      expect(ids(await questions(id, { sort: 'new' }))).toEqual([]);
      expect(await refusal(questions(id, { state: 'pending' }))).toEqual({
        status: 403,
        code: 'role.forbidden',
      });
      // A signature that does not verify is refused, not ignored.
      const forged = await fetch(`${host.baseUrl}/events/${id}/questions?state=pending`, {
        headers: { authorization: 'Townhall agent="x", signature="y"', 'x-nonce': 'z' },
      });
      expect(forged.status).toBe(401);
      // Signed: the author sees its own, another attendee nothing, a moderator and the host all (with reports).
      expect(ids(await questions(id, { state: 'pending' }, author))).toEqual([question.id]);
      expect(ids(await questions(id, { state: 'pending' }, other))).toEqual([]);
      for (const staff of [moderator, host]) {
        const page = await questions(id, { state: 'pending' }, staff);
        expect(page.items).toEqual([{ ...question, reports: 0 }]);
      }
      // Nobody acts on what they cannot see; only moderators and the host approve.
      expect(await refusal(upvote(other, id, question.id))).toEqual({
        status: 404,
        code: 'question.not_found',
      });
      for (const refused of [report(other, id, question.id), withdraw(other, id, question.id)])
        expect(await refusal(refused)).toEqual({ status: 404, code: 'question.not_found' });
      expect(await refusal(act(author, 'approve', id, question.id))).toEqual({
        status: 403,
        code: 'role.forbidden',
      });
      expect(await refusal(act(speaker, 'approve', id, question.id))).toEqual({
        status: 403,
        code: 'role.forbidden',
      });
      expect(await refusal(act(moderator, 'answer', id, question.id))).toEqual({
        status: 409,
        code: 'question.invalid_transition',
      });

      const approved = await act(moderator, 'approve', id, question.id);
      expect(approved).toMatchObject({ id: question.id, state: 'open' });
      expect(await refusal(act(host, 'approve', id, question.id))).toEqual({
        status: 409,
        code: 'question.invalid_transition',
      });
      expect(ids(await questions(id))).toEqual([question.id]);
      expect((await upvote(other, id, question.id)).upvotes).toBe(1);

      // The public live stream had the approval and the upvote, never the pending submission.
      const aboutIt = () =>
        live.received.filter((message) => (message.event.data as { id?: string }).id === question.id);
      await waitFor('the upvote, live', async () => (aboutIt().length >= 2 ? true : undefined));
      const about = aboutIt();
      expect(about.map((message) => message.type)).toEqual([
        EngagementTopics.questionApproved,
        EngagementTopics.questionUpvoted,
      ]);
      // A dismissed pending question never reaches the public stream either.
      const rejected = await ask(other, id, 'Spam spam spam');
      await act(host, 'dismiss', id, rejected.id);
      await ask(author, id, 'Another one');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(
        live.received.some((message) => (message.event.data as { id?: string }).id === rejected.id),
      ).toBe(false);
    } finally {
      await live.close();
    }
  });

  it('withdraw: only its author, from pending or open; it leaves public view; again is a no-op', async () => {
    const { id, attendees } = await event();
    const [author, other] = attendees as [AgentClient, AgentClient];
    const question = await ask(author, id, 'Never mind?');
    expect(ids(await questions(id))).toEqual([question.id]);
    expect(await refusal(withdraw(other, id, question.id))).toEqual({ status: 403, code: 'role.forbidden' });
    expect(await refusal(withdraw(moderator, id, question.id))).toEqual({
      status: 403,
      code: 'role.forbidden',
    });
    const withdrawn = await withdraw(author, id, question.id);
    expect(withdrawn.state).toBe('withdrawn');
    expect(await withdraw(author, id, question.id)).toEqual(withdrawn);
    expect(ids(await questions(id))).toEqual([]);
    expect(ids(await questions(id, { state: 'withdrawn' }, author))).toEqual([question.id]);
    expect(await refusal(upvote(other, id, question.id))).toEqual({
      status: 404,
      code: 'question.not_found',
    });
    expect(await refusal(act(moderator, 'approve', id, question.id))).toEqual({
      status: 409,
      code: 'question.invalid_transition',
    });
    // A promoted question stays where it is.
    const promotedLater = await ask(author, id, 'On stage soon');
    await host.events.start(id);
    await act(moderator, 'promote', id, promotedLater.id);
    expect(await refusal(withdraw(author, id, promotedLater.id))).toEqual({
      status: 409,
      code: 'question.invalid_transition',
    });
    // Settled questions are not reported.
    await act(moderator, 'answer', id, promotedLater.id);
    expect(await refusal(report(other, id, promotedLater.id))).toEqual({
      status: 409,
      code: 'question.invalid_transition',
    });
  });

  it('reports: once per agent under concurrency; the threshold sends an open question back to pending, once', async () => {
    const reporters = 20;
    const { id, attendees } = await event(
      { moderation: { questions: 'post', reportThreshold: 5 } },
      reporters + 1,
    );
    const [author, ...others] = attendees as [AgentClient, ...AgentClient[]];
    const question = await ask(author, id, 'Is this abusive?');
    const live = await LiveReader.open(server.client(), id);
    try {
      expect(await refusal(report(author, id, question.id))).toEqual({
        status: 409,
        code: 'question.own_report',
      });
      expect(await refusal(report(server.client(), id, question.id))).toEqual({
        status: 403,
        code: 'role.forbidden',
      });
      // Every reporter reports three times at once: 60 requests, 20 reports.
      const answers = await Promise.allSettled(
        others.flatMap((agent) => [1, 2, 3].map((n) => report(agent, id, question.id, `reason ${n}`))),
      );
      expect(answers.filter((answer) => answer.status === 'rejected')).toEqual([]);
      const [seen] = (await questions(id, { state: 'pending' }, moderator)).items;
      expect(seen).toMatchObject({ id: question.id, state: 'pending', reports: reporters });
      // The public read has neither the question nor any report count.
      expect(ids(await questions(id))).toEqual([]);
      for (const answer of answers)
        if (answer.status === 'fulfilled') expect(answer.value).not.toHaveProperty('reports');

      // The public stream told viewers once that it was held; no report ever reached it.
      await waitFor('the held message', async () =>
        live.received.some((message) => message.type === EngagementTopics.questionHeld) ? true : undefined,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      const types = live.received.map((message: LiveEvent) => message.type);
      expect(types.filter((type) => type === EngagementTopics.questionHeld)).toHaveLength(1);
      expect(types).not.toContain(EngagementTopics.questionReported);

      // On NATS every report is a domain event for moderators only, and the hold one public event.
      if (server.tap) {
        const events = await server.tap.waitFor(
          '20 reports',
          (all) =>
            all.filter((event) => event.subject === id && event.type === EngagementTopics.questionReported)
              .length >= reporters,
        );
        const about = events.filter((event) => event.subject === id);
        const reported = about.filter((event) => event.type === EngagementTopics.questionReported);
        expect(reported).toHaveLength(reporters);
        expect(reported.every((event) => event.visibility === 'staff')).toBe(true);
        // As the AsyncAPI document describes it (domainEventCatalog).
        for (const event of reported) QuestionReportedSchema.parse(event.data);
        expect(new Set(reported.map((event) => (event.data as { reporterId: string }).reporterId)).size).toBe(
          reporters,
        );
        const held = about.filter((event) => event.type === EngagementTopics.questionHeld);
        expect(held.map((event) => event.visibility)).toEqual([undefined]);
      }

      // A moderator approves it back: it is public again; reports on it go on counting, but a
      // reviewed question is not held again.
      await act(moderator, 'approve', id, question.id);
      expect(ids(await questions(id))).toEqual([question.id]);
      const late = server.client();
      await late.tickets.rsvp(id);
      expect(await report(late, id, question.id)).toMatchObject({ state: 'open' });
      const [again] = (await questions(id, {}, host)).items;
      expect(again).toMatchObject({ state: 'open', reports: reporters + 1 });
    } finally {
      await live.close();
    }
  });

  it('hide: moderators and the host hide a stage message; public reads, the live stream and the recording lose its body', async () => {
    const { id, attendees } = await event();
    const [attendee] = attendees as [AgentClient];
    await host.events.start(id);
    const live = await LiveReader.open(server.client(), id);
    try {
      const kept = await speaker.route(StageRoutes.post, { eventId: id, body: 'Welcome' });
      const abusive = await speaker.route(StageRoutes.post, { eventId: id, body: 'something abusive' });
      const hide = (agent: AgentClient, messageId: string) =>
        agent.route(StageRoutes.hide, { eventId: id, messageId });
      expect(await refusal(hide(attendee, abusive.id))).toEqual({ status: 403, code: 'role.forbidden' });
      expect(await refusal(hide(speaker, abusive.id))).toEqual({ status: 403, code: 'role.forbidden' });
      expect(await refusal(hide(moderator, '00000000-0000-4000-8000-000000000000'))).toEqual({
        status: 404,
        code: 'stage.message_not_found',
      });
      expect(await refusal(hide(moderator, 'not-an-id\u0000'))).toMatchObject({ status: 400 });
      const hidden = await hide(moderator, abusive.id);
      expect(hidden).toEqual({ ...abusive, hidden: true, body: null });
      expect(await hide(host, abusive.id)).toEqual(hidden);

      const stage = await host.call<Page<StageMessageView>>('GET', `/events/${id}/stage`, { signed: false });
      expect(stage.items).toEqual([kept, hidden].map((message) => ({ ...message })));
      expect(stage.items.map((message) => message.sequence)).toEqual([1, 2]);

      const onStage = () => live.received.filter((message) => message.type.startsWith('townhall.stage.'));
      await waitFor('the hidden message', async () => (onStage().length >= 3 ? true : undefined));
      expect(onStage().map((message) => message.type)).toEqual([
        EngagementTopics.stagePosted,
        EngagementTopics.stagePosted,
        EngagementTopics.stageHidden,
      ]);
      expect(onStage()[2]!.event.data).toEqual(hidden);
      // A client resuming from before the post gets it replayed without its body.
      const resumed = await LiveReader.open(server.client(), id, '0');
      try {
        await waitFor('the replay', async () =>
          resumed.received.some((message) => message.type === EngagementTopics.stageHidden)
            ? true
            : undefined,
        );
        expect(JSON.stringify(resumed.received)).not.toContain('something abusive');
        const replayed = resumed.received.find(
          (message) => (message.event.data as { id?: string }).id === abusive.id,
        );
        expect(replayed?.event.data).toMatchObject({ hidden: true, body: null });
      } finally {
        await resumed.close();
      }

      await host.events.end(id);
      const recording = await waitFor('the recording', async () =>
        host.recordings.publish(id).catch(() => undefined),
      );
      const published = await server.client().recordings.get(id);
      expect(published.transcript.stage.map((message) => [message.body, message.hidden])).toEqual([
        ['Welcome', false],
        [null, true],
      ]);
      expect(recording.transcript.stage[1]!.body).toBeNull();
      // After the end too: the recording follows.
      await hide(host, kept.id);
      expect((await server.client().recordings.get(id)).transcript.stage[0]).toMatchObject({
        hidden: true,
        body: null,
      });
    } finally {
      await live.close();
    }
  });

  it('blocks: a blocked agent is refused everywhere it takes part, keeps its ticket, and its open questions leave public view until unblocked', async () => {
    const { id, attendees } = await event({}, 3);
    const [troll, fan, voter] = attendees as [AgentClient, AgentClient, AgentClient];
    const trolling = await ask(troll, id, 'Buy my stuff');
    const fair = await ask(fan, id, 'A fair question');
    await host.events.start(id);
    const poll = await speaker.route(PollRoutes.open, {
      eventId: id,
      question: 'Yes?',
      options: ['Yes', 'No'],
      multiple: false,
      resultsVisibility: 'live',
    });

    // Who may block whom.
    expect(await refusal(block(fan, id, troll.agentId))).toEqual({ status: 403, code: 'role.forbidden' });
    expect(await refusal(block(speaker, id, troll.agentId))).toEqual({ status: 403, code: 'role.forbidden' });
    expect(await refusal(block(moderator, id, host.agentId))).toEqual({
      status: 403,
      code: 'role.forbidden',
    });
    expect(await refusal(block(host, id, host.agentId))).toEqual({ status: 403, code: 'role.forbidden' });
    expect(await refusal(block(moderator, id, moderator.agentId))).toEqual({
      status: 403,
      code: 'role.forbidden',
    });
    expect(await refusal(block(moderator, id, 'not a key'))).toMatchObject({
      status: 400,
      code: 'validation.failed',
    });

    const blocked = await block(moderator, id, troll.agentId);
    expect(blocked).toMatchObject({
      eventId: id,
      agentId: troll.agentId,
      blocked: true,
      blockedBy: moderator.agentId,
    });
    expect(await block(host, id, troll.agentId)).toEqual(blocked);
    const list = await moderator.route(ModerationRoutes.list, { eventId: id, limit: 20 });
    expect(list.items).toEqual([blocked]);
    expect(await refusal(fan.route(ModerationRoutes.list, { eventId: id, limit: 20 }))).toEqual({
      status: 403,
      code: 'role.forbidden',
    });

    // Refused everywhere it would take part.
    const refused = { status: 403, code: 'role.blocked' };
    expect(await refusal(ask(troll, id, 'Again'))).toEqual(refused);
    expect(await refusal(upvote(troll, id, fair.id))).toEqual(refused);
    expect(await refusal(report(troll, id, fair.id))).toEqual(refused);
    expect(
      await refusal(
        troll.route(PollRoutes.vote, { eventId: id, pollId: poll.id, optionIds: [poll.options[0]!.id] }),
      ),
    ).toEqual(refused);
    // Its open question left public view; the ticket is kept.
    expect(ids(await questions(id))).toEqual([fair.id]);
    expect((await troll.tickets.held(id)).status).toBe('active');
    // Others are not affected.
    expect((await upvote(voter, id, fair.id)).upvotes).toBe(1);

    // A blocked speaker loses the stage; only the host blocks (and unblocks) a moderator.
    await block(host, id, speaker.agentId);
    expect(await refusal(speaker.route(StageRoutes.post, { eventId: id, body: 'hi' }))).toEqual(refused);
    const blockedModerator = await block(host, id, moderator.agentId);
    expect(blockedModerator.blocked).toBe(true);
    expect(await refusal(act(moderator, 'dismiss', id, fair.id))).toEqual(refused);
    expect(await refusal(unblock(moderator, id, troll.agentId))).toEqual(refused);
    await unblock(host, id, moderator.agentId);

    if (server.tap) {
      const events = await server.tap.waitFor('the blocks', (all) =>
        all.some((event) => event.subject === id && event.type === EngagementTopics.participantUnblocked),
      );
      const blocks = events
        .filter((event) => event.subject === id && event.type.startsWith('townhall.participant.'))
        .map((event) => [event.type, (event.data as { agentId: string }).agentId]);
      // Each change once; the repeated block announced nothing.
      expect(blocks).toEqual([
        [EngagementTopics.participantBlocked, troll.agentId],
        [EngagementTopics.participantBlocked, speaker.agentId],
        [EngagementTopics.participantBlocked, moderator.agentId],
        [EngagementTopics.participantUnblocked, moderator.agentId],
      ]);
    }

    // Unblocked: the question is back and the agent takes part again. Unblocking again is a no-op.
    const unblocked = await unblock(moderator, id, troll.agentId);
    expect(unblocked).toEqual({
      eventId: id,
      agentId: troll.agentId,
      blocked: false,
      blockedBy: null,
      blockedAt: null,
    });
    expect(await unblock(moderator, id, troll.agentId)).toEqual(unblocked);
    expect(ids(await questions(id, { sort: 'new' })).sort()).toEqual([trolling.id, fair.id].sort());
    expect((await ask(troll, id, 'Sorry')).state).toBe('open');
  });

  it('moderation settings: validated on create and edit; either field alone keeps the other', async () => {
    for (const moderation of [
      { questions: 'later', reportThreshold: 3 },
      { questions: 'pre', reportThreshold: 0 },
      { questions: 'pre', reportThreshold: 101 },
      { questions: 'pre', reportThreshold: 2.5 },
      { questions: 'pre', reportThreshold: '3' },
      { questions: 'pre', reportThreshold: 3, extra: true },
    ])
      expect(
        await refusal(host.events.create(anEvent({ moderation } as unknown as Partial<EventFieldsInput>))),
      ).toEqual({ status: 400, code: 'validation.failed' });
    const created = await host.events.create(anEvent());
    expect(created.moderation).toEqual({ questions: 'post', reportThreshold: 3 });
    const edited = await host.events.update(created.id, { moderation: { questions: 'pre' } });
    expect(edited.moderation).toEqual({ questions: 'pre', reportThreshold: 3 });
    const again = await host.events.update(created.id, { moderation: { reportThreshold: 10 } });
    expect(again.moderation).toEqual({ questions: 'pre', reportThreshold: 10 });
    expect(await refusal(moderator.events.update(created.id, { moderation: { questions: 'post' } }))).toEqual(
      {
        status: 403,
        code: 'role.forbidden',
      },
    );
    // Engagement follows the edit: a new question waits for review.
    const attendee = server.client();
    await attendee.tickets.rsvp(created.id);
    const question = await waitFor('pre-moderation in engagement', async () => {
      const asked = await ask(attendee, created.id, `Held? ${Date.now()}`);
      return asked.state === 'pending' ? asked : undefined;
    });
    expect(question.state).toBe('pending');
  });
});
