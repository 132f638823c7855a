// The engagement service on its own (the service tier: libs/testing/src/service.ts). Events and
// ticketing are not running: stand-ins answer Events.access and Attendance.get from what they
// know, count every request they receive, and domain events reach engagement's consumers
// only when a test delivers them. So each test can hold a domain event back (the gap between a
// change at its owner and its arrival here) and see what engagement decides meanwhile.
import { randomUUID } from 'node:crypto';
import { generateAgentKey } from '@townhall/auth';
import {
  DEFAULT_MODERATION,
  DEFAULT_OFFER_MINUTES,
  Attendance,
  DomainError,
  EngagementTopics,
  EventTopics,
  Events,
  Polls,
  Questions,
  Stage,
  TicketTopics,
  type CloudEvent,
  type EventStatus,
  type EventView,
  type TicketView,
} from '@townhall/contracts';
import { waitFor } from '@townhall/testing';
import { refusalOf, ServiceHarness } from '@townhall/testing/service';
import { engagement as engagementService } from '../src/service.js';

const HOUR = 3_600_000;

/** What the stand-in events service knows of an event (its truth, whatever engagement was told). */
interface Truth {
  view: EventView;
  holders: Set<string>;
}

describe('engagement service: authorization from its projections', () => {
  let engagement: ServiceHarness;
  const truth = new Map<string, Truth>();
  const asked = { access: 0, attendance: 0 };
  const host = generateAgentKey().agentId;
  const moderator = generateAgentKey().agentId;

  beforeAll(async () => {
    engagement = await ServiceHarness.start(engagementService);
    engagement.answer(Events.access, ({ eventId, agentId }) => {
      asked.access += 1;
      const known = truth.get(eventId)?.view;
      if (!known) throw new DomainError('event.not_found', `No event ${eventId}`);
      const role =
        agentId === known.hostId
          ? ('host' as const)
          : known.moderators.includes(agentId)
            ? ('moderator' as const)
            : known.speakers.includes(agentId)
              ? ('speaker' as const)
              : null;
      return {
        eventId: known.id,
        status: known.status,
        hostId: known.hostId,
        role,
        moderation: known.moderation,
        offerMinutes: known.offerMinutes,
        startsAt: known.startsAt,
        endsAt: known.endsAt,
        capacity: known.capacity,
        ticketing: known.ticketing,
        moderators: known.moderators,
        speakers: known.speakers,
        seriesId: known.seriesId,
        version: known.version,
        updatedAt: known.updatedAt,
      };
    });
    engagement.answer(Attendance.get, ({ eventId, agentId }) => {
      asked.attendance += 1;
      return { eventId, agentId, holdsTicket: truth.get(eventId)?.holders.has(agentId) ?? false };
    });
  });
  afterAll(async () => {
    await engagement?.stop();
  });
  beforeEach(() => {
    asked.access = 0;
    asked.attendance = 0;
  });

  const cloudEvent = (type: string, subject: string, data: unknown): CloudEvent => ({
    specversion: '1.0',
    id: randomUUID(),
    source: 'test',
    type,
    time: new Date().toISOString(),
    subject,
    datacontenttype: 'application/json',
    data,
  });

  /** A change at the events service: its truth now, and the domain event announcing it (not yet delivered). */
  function change(eventId: string, type: string, edit: Partial<EventView>): CloudEvent {
    const known = truth.get(eventId)!;
    known.view = { ...known.view, ...edit, version: known.view.version + 1 };
    return cloudEvent(type, eventId, known.view);
  }

  /** A live event engagement has been told of, with `moderator` appointed. */
  async function liveEvent(status: EventStatus = 'live'): Promise<string> {
    const id = randomUUID();
    const startsAt = new Date(Date.now() - HOUR / 2).toISOString();
    const view: EventView = {
      id,
      title: 'AMA',
      description: '',
      agenda: [],
      startsAt,
      endsAt: new Date(Date.now() + HOUR).toISOString(),
      timezone: 'UTC',
      hostId: host,
      moderators: [moderator],
      speakers: [],
      capacity: 100,
      ticketing: { mode: 'free' },
      moderation: DEFAULT_MODERATION,
      offerMinutes: DEFAULT_OFFER_MINUTES,
      status,
      seriesId: null,
      counts: { ticketsSold: {}, questions: 0, polls: 0 },
      version: 1,
      createdAt: startsAt,
      updatedAt: startsAt,
      startedAt: status === 'live' ? startsAt : null,
      endedAt: null,
      cancelledAt: null,
    };
    truth.set(id, { view, holders: new Set() });
    await engagement.deliver(cloudEvent(EventTopics.scheduled, id, view));
    return id;
  }

  /** A ticket at ticketing, and its domain events (issued now; cancelled when `cancel` is called). */
  function ticket(eventId: string, holder: string) {
    truth.get(eventId)!.holders.add(holder);
    const view: TicketView = {
      id: randomUUID(),
      eventId,
      tierId: 'general',
      holderId: holder,
      status: 'active',
      price: '0',
      network: null,
      transaction: null,
      asset: null,
      createdAt: new Date().toISOString(),
      cancelledAt: null,
    };
    return {
      issued: cloudEvent(TicketTopics.issued, eventId, view),
      cancel: () => {
        truth.get(eventId)!.holders.delete(holder);
        const cancelledAt = new Date().toISOString();
        return cloudEvent(TicketTopics.cancelled, eventId, { ...view, status: 'cancelled', cancelledAt });
      },
    };
  }

  const ask = (eventId: string, agent: string, body = 'Why?') =>
    engagement.send(Questions.submit, { eventId, body }, agent);

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

    const appointed = cloudEvent(EventTopics.updated, eventId, truth.get(eventId)!.view);
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

  it('announces only what the domain event catalog says (the AsyncAPI document)', async () => {
    expect(engagement.published.length).toBeGreaterThan(0);
    expect(engagement.offCatalog()).toEqual([]);
  });
});
