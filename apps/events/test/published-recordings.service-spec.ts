// The events service keeps when each event's recording was published (the service tier:
// libs/testing/src/service.ts), from engagement's townhall.recording.published.
import { generateAgentKey } from '@townhall/auth';
import { EngagementTopics, Events, type RecordingView } from '@townhall/contracts';
import { domainEvent } from '@townhall/platform/service';
import { ServiceHarness } from '@townhall/testing/service';
import { events as eventsService } from '../src/service.js';

const agent = () => generateAgentKey().agentId;
const HOUR = 3_600_000;

/** The recording of an event nobody came to, as engagement publishes it. */
const lists = { agenda: [], stage: [], questions: [], polls: [] };
const NOBODY_CAME = { published: true, mediaUrl: null, summary: null, nextCursor: null };
const transcript = { ...lists, attendance: { ticketsIssued: 0, attendees: [] } };

/** engagement's announcement of a published recording. */
const published = (eventId: string, publishedAt: string) =>
  domainEvent({
    source: 'townhall/engagement',
    type: EngagementTopics.recordingPublished,
    subject: eventId,
    data: { ...NOBODY_CAME, transcript, eventId, publishedAt } satisfies RecordingView,
  });

describe('events service: the recording an event has', () => {
  let events: ServiceHarness;

  beforeAll(async () => {
    events = await ServiceHarness.start(eventsService);
  });
  afterAll(async () => {
    await events?.stop();
  });

  it('keeps when its recording was first published, once however often the event is handed over', async () => {
    const host = agent();
    const startsAt = new Date(Date.now() + HOUR);
    const event = await events.send(
      Events.create,
      {
        title: 'Recorded later',
        startsAt: startsAt.toISOString(),
        endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
        timezone: 'UTC',
        capacity: 10,
      },
      host,
    );
    expect(event.recordingPublishedAt).toBeNull();

    const first = published(event.id, '2026-11-26T10:00:00.000Z');
    await events.deliver(first);
    const after = await events.send(Events.get, { eventId: event.id });
    expect(after.recordingPublishedAt).toBe('2026-11-26T10:00:00.000Z');
    // A projection, not an edit by the host: the event's version does not move.
    expect(after.version).toBe(event.version);

    // Handed over again (a lost acknowledgement), or published again with a new summary: unchanged.
    await events.redeliver(first);
    await events.deliver(published(event.id, '2026-11-27T10:00:00.000Z'));
    expect((await events.send(Events.get, { eventId: event.id })).recordingPublishedAt).toBe(
      '2026-11-26T10:00:00.000Z',
    );
    const { items } = await events.send(Events.list, { hostId: host, limit: 10 });
    expect(items.map((listed) => listed.recordingPublishedAt)).toEqual(['2026-11-26T10:00:00.000Z']);
  });
});
