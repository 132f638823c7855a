// Series followers in the ticketing service on its own (the service tier: libs/testing/src/service.ts):
// the events service's announcements are delivered to ticketing's consumers directly.
// docs/product.md "Series".
import { randomUUID } from 'node:crypto';
import { generateAgentKey } from '@townhall/auth';
import { SeriesTopics, type EventAccess, type SeriesFollowChange } from '@townhall/contracts';
import { waitFor } from '@townhall/testing';
import type { ServiceHarness } from '@townhall/testing/service';
import { announcement, TicketingFixtures } from './fixtures.js';

const DAY = 86_400_000;

describe('ticketing: series followers', () => {
  const fixtures = new TicketingFixtures();
  const { rsvp } = fixtures;
  let ticketing: ServiceHarness;

  beforeAll(async () => {
    ticketing = await fixtures.start({ FOLLOWER_SEATING_INTERVAL_MS: '100' });
  });
  afterAll(async () => {
    await ticketing?.stop();
  });

  /** An occurrence of `seriesId` starting at `startsAt`, known to the stand-in events service. */
  function occurrence(seriesId: string, startsAt: Date, capacity: number): EventAccess {
    const event = fixtures.anEvent(capacity);
    Object.assign(event, {
      seriesId,
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + 3_600_000).toISOString(),
    });
    return event;
  }
  const scheduled = (event: EventAccess) => ticketing.deliver(fixtures.scheduled(event));
  const follow = (seriesId: string, agentId: string) =>
    ticketing.deliver(
      announcement(SeriesTopics.followed, seriesId, { seriesId, agentId } satisfies SeriesFollowChange),
    );
  const holders = async (eventId: string) =>
    (
      await ticketing.query<{ holder_id: string }>(
        `SELECT holder_id FROM ticketing.tickets WHERE event_id = $1 AND status <> 'cancelled' ORDER BY created_at`,
        [eventId],
      )
    ).map((row) => row.holder_id);

  it('seats followers in the next occurrence only; the one after is open to all, and its free seats go to followers once it is the next', async () => {
    const seriesId = randomUUID();
    const next = occurrence(seriesId, new Date(Date.now() + 2_500), 5);
    const afterNext = occurrence(seriesId, new Date(Date.now() + DAY), 5);
    const later = occurrence(seriesId, new Date(Date.now() + 2 * DAY), 5);
    for (const event of [next, afterNext, later]) await scheduled(event);

    const followers = Array.from({ length: 5 }, () => generateAgentKey().agentId);
    for (const agentId of followers) await follow(seriesId, agentId);
    expect(new Set(await holders(next.eventId))).toEqual(new Set(followers));
    expect(await holders(afterNext.eventId)).toEqual([]);
    expect(await holders(later.eventId)).toEqual([]);

    // Five followers of a capacity-5 series leave the occurrence after next open: a sixth agent gets a seat.
    const sixth = generateAgentKey();
    expect((await rsvp(sixth, afterNext.eventId)).created).toBe(true);

    // Once the next one has started, the one after is the next: its four free seats go to the
    // followers in order of following, and the occurrence after that is still untouched.
    await waitFor('the followers seated in the new next occurrence', async () =>
      (await holders(afterNext.eventId)).length === 5 ? true : undefined,
    );
    expect(new Set(await holders(afterNext.eventId))).toEqual(
      new Set([sixth.agentId, ...followers.slice(0, 4)]),
    );
    expect(await holders(later.eventId)).toEqual([]);
    const [row] = await ticketing.query<{ seated: number }>(
      `SELECT count(*)::int AS seated FROM ticketing.events WHERE series_id = $1 AND followers_seated_at IS NOT NULL`,
      [seriesId],
    );
    expect(row!.seated).toBe(2);
  });

  it('seats a follower who arrives before the occurrences in the first one only, once', async () => {
    const seriesId = randomUUID();
    const fan = generateAgentKey().agentId;
    await follow(seriesId, fan);
    const first = occurrence(seriesId, new Date(Date.now() + DAY), 3);
    const second = occurrence(seriesId, new Date(Date.now() + 2 * DAY), 3);
    await scheduled(first);
    await scheduled(second);
    // A later pass finds nothing more to do for this series.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await holders(first.eventId)).toEqual([fan]);
    expect(await holders(second.eventId)).toEqual([]);
  });
});
