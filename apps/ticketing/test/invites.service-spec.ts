// Invite-only events in the ticketing service on its own (the service tier: libs/testing/src/service.ts):
// a stand-in answers Events.access, domain events are delivered to ticketing's consumers directly.
// docs/product.md "Who may come".
import { generateAgentKey } from '@townhall/auth';
import { Invites, InviteTopics, Tickets, Waitlist } from '@townhall/contracts';
import { waitFor } from '@townhall/testing';
import { refusalOf, type ServiceHarness } from '@townhall/testing/service';
import { paid, TicketingFixtures } from './fixtures.js';

describe('ticketing: who may come', () => {
  const fixtures = new TicketingFixtures();
  const { host, rsvp, funded, offerOf, payment, balanceOf } = fixtures;
  let ticketing: ServiceHarness;

  beforeAll(async () => {
    ticketing = await fixtures.start({ LEDGER_FAUCET: 'true' });
  });
  afterAll(async () => {
    const off = ticketing?.offCatalog().filter((event) => !event.type.startsWith('townhall.event.'));
    await ticketing?.stop();
    expect(off).toEqual([]);
  });

  const invite = (eventId: string, agentIds: string[], by = host.agentId) =>
    ticketing.send(Invites.add, { eventId, agentIds }, by);
  const published = (type: string, eventId: string) =>
    ticketing.published.filter((event) => event.type === type && event.subject === eventId);

  it('lets only the invited (and the host) take a free seat; removing an invite keeps the ticket', async () => {
    const event = fixtures.anEvent(10, { mode: 'free' }, 15, 'invite');
    const [guest, other, stranger] = [generateAgentKey(), generateAgentKey(), generateAgentKey()];
    expect((await refusalOf(rsvp(stranger, event.eventId))).code).toBe('access.not_invited');
    expect((await refusalOf(invite(event.eventId, [guest.agentId], stranger.agentId))).code).toBe(
      'role.forbidden',
    );

    const first = await invite(event.eventId, [guest.agentId, other.agentId, guest.agentId]);
    expect(first.added).toBe(2);
    expect(first.invites.map((entry) => entry.agentId).sort()).toEqual([guest.agentId, other.agentId].sort());
    expect(first.invites[0]).toMatchObject({ eventId: event.eventId, invitedBy: host.agentId });
    // Idempotent: nothing new, the same invites, announced once.
    const again = await invite(event.eventId, [guest.agentId]);
    expect(again).toEqual({ added: 0, invites: [first.invites.find((i) => i.agentId === guest.agentId)] });
    await waitFor('the invites announced', async () =>
      published(InviteTopics.added, event.eventId).length >= 2 ? true : undefined,
    );
    expect(published(InviteTopics.added, event.eventId)).toHaveLength(2);

    const ticket = await rsvp(guest, event.eventId);
    expect(ticket).toMatchObject({ created: true, ticket: { holderId: guest.agentId, status: 'active' } });
    expect((await rsvp(host, event.eventId)).created).toBe(true);

    const removed = await ticketing.send(
      Invites.remove,
      { eventId: event.eventId, agentId: guest.agentId },
      host.agentId,
    );
    expect(removed).toMatchObject({ agentId: guest.agentId });
    await waitFor('the removal announced', async () =>
      published(InviteTopics.removed, event.eventId).length > 0 ? true : undefined,
    );
    expect(published(InviteTopics.removed, event.eventId).map((e) => e.data)).toEqual([removed]);
    expect(
      (
        await refusalOf(
          ticketing.send(Invites.remove, { eventId: event.eventId, agentId: guest.agentId }, host.agentId),
        )
      ).code,
    ).toBe('invite.not_found');
    // The ticket is kept; given back, it cannot be taken again.
    expect(await ticketing.send(Tickets.held, { eventId: event.eventId }, guest.agentId)).toMatchObject({
      id: ticket.ticket.id,
      status: 'active',
    });
    await ticketing.send(Tickets.release, { eventId: event.eventId }, guest.agentId);
    expect((await refusalOf(rsvp(guest, event.eventId))).code).toBe('access.not_invited');
  });

  it('pages the invites oldest first, for the host only', async () => {
    const event = fixtures.anEvent(10, { mode: 'free' }, 15, 'invite');
    const invited = [];
    for (let i = 0; i < 5; i += 1)
      invited.push(...(await invite(event.eventId, [generateAgentKey().agentId])).invites);
    // Oldest first; invites of the same millisecond in agent id order.
    const agents = invited
      .sort((a, b) => a.invitedAt.localeCompare(b.invitedAt) || (a.agentId < b.agentId ? -1 : 1))
      .map((entry) => entry.agentId);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await ticketing.send(
        Invites.list,
        { eventId: event.eventId, limit: 2, ...(cursor ? { cursor } : {}) },
        host.agentId,
      );
      seen.push(...page.items.map((item) => item.agentId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(agents);
    expect(
      (await refusalOf(ticketing.send(Invites.list, { eventId: event.eventId, limit: 10 }, agents[0]!))).code,
    ).toBe('role.forbidden');
    expect(
      (
        await refusalOf(
          ticketing.send(Invites.list, { eventId: event.eventId, limit: 10, cursor: 'x' }, host.agentId),
        )
      ).code,
    ).toBe('validation.failed');
  });

  it('refuses an uninvited buyer before any payment, and sells to the invited', async () => {
    const event = fixtures.anEvent(10, paid('400000'), 15, 'invite');
    const stranger = await funded('1000000');
    const guest = await funded('1000000');
    expect((await refusalOf(rsvp(stranger, event.eventId))).code).toBe('access.not_invited');
    await invite(event.eventId, [guest.agentId]);
    const offer = await offerOf(guest, event.eventId);
    // A payment the stranger signed for the guest's offer is refused as well, and nothing is charged.
    expect((await refusalOf(rsvp(stranger, event.eventId, payment(stranger, offer)))).code).toBe(
      'access.not_invited',
    );
    expect(await balanceOf(stranger)).toBe('1000000');
    const bought = await rsvp(guest, event.eventId, payment(guest, offer));
    expect(bought).toMatchObject({ created: true, ticket: { holderId: guest.agentId, price: '400000' } });
    expect(await balanceOf(guest)).toBe('600000');
  });

  it('keeps the waitlist to the invited: its line passes over whom the event no longer admits', async () => {
    const event = fixtures.anEvent(1, { mode: 'free' }, 15, 'open');
    const holder = generateAgentKey();
    const [early, guest, stranger] = [generateAgentKey(), generateAgentKey(), generateAgentKey()];
    await rsvp(holder, event.eventId);
    await ticketing.send(Waitlist.join, { eventId: event.eventId }, early.agentId);
    // The host makes the event invite only, and invites a later joiner.
    await ticketing.deliver(fixtures.updated({ ...event, access: 'invite', version: event.version + 1 }));
    expect(
      (await refusalOf(ticketing.send(Waitlist.join, { eventId: event.eventId }, stranger.agentId))).code,
    ).toBe('access.not_invited');
    await invite(event.eventId, [guest.agentId]);
    await ticketing.send(Waitlist.join, { eventId: event.eventId }, guest.agentId);
    await ticketing.send(Tickets.release, { eventId: event.eventId }, holder.agentId);
    // The freed seat went to the invited guest, not to the earlier agent who is not invited.
    expect(await ticketing.send(Tickets.held, { eventId: event.eventId }, guest.agentId)).toMatchObject({
      status: 'active',
    });
    expect(
      (await refusalOf(ticketing.send(Tickets.held, { eventId: event.eventId }, early.agentId))).code,
    ).toBe('ticket.not_found');
    // Invited later, the agent who waited takes the next seat that frees.
    await invite(event.eventId, [early.agentId]);
    await ticketing.send(Tickets.release, { eventId: event.eventId }, guest.agentId);
    expect(await ticketing.send(Tickets.held, { eventId: event.eventId }, early.agentId)).toMatchObject({
      status: 'active',
    });
  });
});
