// Codes in the ticketing service on its own (the service tier: libs/testing/src/service.ts): a
// stand-in answers Events.access, domain events are delivered to ticketing's consumers directly.
// docs/product.md "Codes".
import { generateAgentKey, type AgentKey } from '@townhall/auth';
import { Codes, cursorCodec, Ledger, Tickets, type CreateCode } from '@townhall/contracts';
import { z } from 'zod';
import { refusalOf, type ServiceHarness } from '@townhall/testing/service';
import type { PaymentRequirements } from '@townhall/x402';
import { paid, ticketOf, TicketingFixtures } from './fixtures.js';

describe('ticketing: codes', () => {
  const fixtures = new TicketingFixtures();
  const { host, funded, payment, balanceOf } = fixtures;
  let ticketing: ServiceHarness;

  beforeAll(async () => {
    ticketing = await fixtures.start({ LEDGER_FAUCET: 'true' });
  });
  afterAll(async () => {
    const off = ticketing?.offCatalog().filter((event) => !event.type.startsWith('townhall.event.'));
    await ticketing?.stop();
    expect(off).toEqual([]);
  });

  const create = (eventId: string, code: Omit<CreateCode, 'eventId'>, by = host.agentId) =>
    ticketing.send(Codes.create, { eventId, ...code }, by);
  const rsvp = (
    agent: AgentKey,
    eventId: string,
    options: { code?: string; tierId?: string; payment?: string },
  ) => ticketing.send(Tickets.rsvp, { eventId, ...options }, agent.agentId);
  /** The 402's accepts for this RSVP. */
  const offers = async (
    agent: AgentKey,
    eventId: string,
    options: { code?: string; tierId?: string } = {},
  ) => {
    const error = await refusalOf(rsvp(agent, eventId, options));
    expect(error.code).toBe('payment.required');
    return (error.extensions?.['x402'] as { accepts: PaymentRequirements[] }).accepts;
  };
  const uses = async (eventId: string) =>
    Object.fromEntries(
      (await ticketing.send(Codes.list, { eventId, limit: 50 }, host.agentId)).items.map((c) => [
        c.code,
        c.uses,
      ]),
    );
  const tiered = {
    mode: 'tiered' as const,
    asset: 'USDC',
    tiers: [
      { id: 'general', name: 'General', price: '1000', capacity: 50 },
      { id: 'vip', name: 'VIP', price: '5000', capacity: 5 },
      { id: 'press', name: 'Press', price: '3000', capacity: 5, hidden: true },
    ],
  };

  it('offers the discounted price, takes only a payment of it, and records the code on the ticket and ledger', async () => {
    const event = fixtures.anEvent(60, tiered);
    const buyer = await funded('100000');
    await create(event.eventId, { code: 'Spring25', percentOff: 25, tierIds: ['vip'] });
    await create(event.eventId, { code: 'minus-300', amountOff: '300' });
    // Without a code: the tiers that are not hidden, at their prices.
    expect((await offers(buyer, event.eventId)).map((o) => [o.extra.tierId, o.maxAmountRequired])).toEqual([
      ['general', '1000'],
      ['vip', '5000'],
    ]);
    // With one, in any case: the tiers it applies to, at its price.
    const discounted = await offers(buyer, event.eventId, { code: 'SPRING25' });
    expect(discounted.map((o) => [o.extra.tierId, o.maxAmountRequired, o.extra.code])).toEqual([
      ['vip', '3750', 'Spring25'],
    ]);
    expect((await refusalOf(rsvp(buyer, event.eventId, { code: 'spring25', tierId: 'general' }))).code).toBe(
      'code.not_for_tier',
    );
    expect((await refusalOf(rsvp(buyer, event.eventId, { code: 'nope' }))).code).toBe('code.not_found');
    // A payment of the list price is not the discounted one: refused, nothing charged.
    const [full] = (await offers(buyer, event.eventId, { tierId: 'vip' })).filter(
      (o) => o.extra.tierId === 'vip',
    );
    const wrong = await refusalOf(
      rsvp(buyer, event.eventId, { code: 'spring25', payment: payment(buyer, full!) }),
    );
    expect(wrong.code).toBe('payment.invalid');
    expect(await balanceOf(buyer)).toBe('100000');

    const bought = ticketOf(
      await rsvp(buyer, event.eventId, { code: 'spring25', payment: payment(buyer, discounted[0]!) }),
    );
    expect(bought).toMatchObject({
      created: true,
      ticket: { tierId: 'vip', price: '3750', code: 'Spring25' },
    });
    expect(await balanceOf(buyer)).toBe('96250');
    const entries = (await ticketing.send(Ledger.entries, { limit: 10 }, buyer.agentId)).items;
    expect(entries.find((e) => e.type === 'EVENT_TICKET')).toMatchObject({
      amount: '-3750',
      code: 'Spring25',
    });
    // A fixed amount off every tier.
    const other = await funded('100000');
    const fixed = await offers(other, event.eventId, { code: 'MINUS-300' });
    expect(fixed.map((o) => [o.extra.tierId, o.maxAmountRequired])).toEqual([
      ['general', '700'],
      ['vip', '4700'],
    ]);
    expect(await uses(event.eventId)).toEqual({ Spring25: 1, 'minus-300': 0 });
  });

  it('unlocks a hidden tier only with its code, and a free code issues the ticket without payment', async () => {
    const event = fixtures.anEvent(60, tiered);
    const [agent, guest] = [await funded('100000'), generateAgentKey()];
    expect((await refusalOf(rsvp(agent, event.eventId, { tierId: 'press' }))).code).toBe('validation.failed');
    await create(event.eventId, { code: 'PRESS', unlocksTierIds: ['press'], tierIds: ['press'] });
    await create(event.eventId, { code: 'comp', free: true, unlocksTierIds: ['press'] });
    const press = await offers(agent, event.eventId, { code: 'press' });
    expect(press.map((o) => [o.extra.tierId, o.maxAmountRequired])).toEqual([['press', '3000']]);
    // A free code: a ticket at once (201), no payment, its use counted.
    const free = ticketOf(await rsvp(guest, event.eventId, { code: 'COMP', tierId: 'press' }));
    expect(free).toMatchObject({
      created: true,
      settlement: null,
      ticket: { tierId: 'press', price: '0', code: 'comp', holderId: guest.agentId },
    });
    // It makes every tier free: the RSVP names the one it takes.
    expect((await refusalOf(rsvp(generateAgentKey(), event.eventId, { code: 'comp' }))).code).toBe(
      'validation.failed',
    );
    expect(await uses(event.eventId)).toEqual({ PRESS: 0, comp: 1 });
    // Codes are unique per event in any case, name the event's tiers, and unlock hidden ones only.
    expect((await refusalOf(create(event.eventId, { code: 'Press', percentOff: 5 }))).code).toBe(
      'code.taken',
    );
    expect((await refusalOf(create(event.eventId, { code: 'x-vip', unlocksTierIds: ['vip'] }))).code).toBe(
      'validation.failed',
    );
    expect(
      (await refusalOf(create(event.eventId, { code: 'x-gold', percentOff: 5, tierIds: ['gold'] }))).code,
    ).toBe('validation.failed');
    expect((await refusalOf(create(event.eventId, { code: 'two', percentOff: 5, free: true }))).code).toBe(
      'validation.failed',
    );
    expect(
      (await refusalOf(create(event.eventId, { code: 'mine', percentOff: 5 }, agent.agentId))).code,
    ).toBe('role.forbidden');
  });

  it('pages the codes oldest first, and refuses a tampered cursor', async () => {
    const event = fixtures.anEvent(10, paid('1000'));
    for (const code of ['one', 'TWO', 'three']) await create(event.eventId, { code, percentOff: 10 });
    const first = await ticketing.send(Codes.list, { eventId: event.eventId, limit: 2 }, host.agentId);
    const rest = await ticketing.send(
      Codes.list,
      { eventId: event.eventId, limit: 2, cursor: first.nextCursor! },
      host.agentId,
    );
    expect([...first.items, ...rest.items].map((code) => code.code)).toEqual(['one', 'TWO', 'three']);
    expect(rest.nextCursor).toBeNull();
    // A cursor of the right shape whose code is not one (a NUL in it, upper case): 400, never a 500.
    const forged = cursorCodec(z.tuple([z.string(), z.string()]));
    for (const key of ['on\u0000e', 'ONE', ''])
      expect(
        (
          await refusalOf(
            ticketing.send(
              Codes.list,
              { eventId: event.eventId, limit: 2, cursor: forged.encode([new Date().toISOString(), key]) },
              host.agentId,
            ),
          )
        ).code,
      ).toBe('validation.failed');
  });

  it('refuses an expired code, and a removed one', async () => {
    const event = fixtures.anEvent(10, paid('1000'));
    const agent = await funded('10000');
    await create(event.eventId, {
      code: 'early',
      percentOff: 10,
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    expect((await refusalOf(rsvp(agent, event.eventId, { code: 'EARLY' }))).code).toBe('code.expired');
    await create(event.eventId, { code: 'gone', percentOff: 10 });
    expect(
      await ticketing.send(Codes.remove, { eventId: event.eventId, code: 'GONE' }, host.agentId),
    ).toMatchObject({ code: 'gone' });
    expect((await refusalOf(rsvp(agent, event.eventId, { code: 'gone' }))).code).toBe('code.not_found');
    expect(
      (await refusalOf(ticketing.send(Codes.remove, { eventId: event.eventId, code: 'gone' }, host.agentId)))
        .code,
    ).toBe('code.not_found');
  });

  it('gives a code with maxUses 5 to exactly 5 of 50 buyers at once', async () => {
    const event = fixtures.anEvent(100, paid('1000'));
    await create(event.eventId, { code: 'FIVE', percentOff: 50, maxUses: 5 });
    const buyers = await Promise.all(Array.from({ length: 50 }, () => funded('10000')));
    const signed = await Promise.all(
      buyers.map(async (buyer) => {
        const [offer] = await offers(buyer, event.eventId, { code: 'five' });
        return { buyer, header: payment(buyer, offer!) };
      }),
    );
    const outcomes = await Promise.allSettled(
      signed.map(({ buyer, header }) => rsvp(buyer, event.eventId, { code: 'five', payment: header })),
    );
    const bought = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(bought).toHaveLength(5);
    for (const outcome of outcomes)
      if (outcome.status === 'rejected')
        expect((outcome.reason as { code?: string }).code).toBe('code.exhausted');
    const [counted] = await ticketing.query<{ tickets: number; paid: string; uses: number }>(
      `SELECT (SELECT count(*)::int FROM ticketing.tickets WHERE event_id = $1 AND code = 'FIVE') AS tickets,
              (SELECT sum(price)::text FROM ticketing.tickets WHERE event_id = $1) AS paid,
              (SELECT uses FROM ticketing.codes WHERE event_id = $1) AS uses`,
      [event.eventId],
    );
    expect(counted).toEqual({ tickets: 5, paid: '2500', uses: 5 });
    // Nobody who was refused was charged.
    const balances = await Promise.all(buyers.map((buyer) => balanceOf(buyer)));
    expect(balances.filter((b) => b === '9500')).toHaveLength(5);
    expect(balances.filter((b) => b === '10000')).toHaveLength(45);
    expect((await refusalOf(rsvp(generateAgentKey(), event.eventId, { code: 'five' }))).code).toBe(
      'code.exhausted',
    );
  });

  it('refunds a coded ticket what was paid when its event is cancelled', async () => {
    const event = fixtures.anEvent(10, paid('1000'));
    await create(event.eventId, { code: 'HALF', percentOff: 50 });
    const buyer = await funded('5000');
    const [offer] = await offers(buyer, event.eventId, { code: 'half' });
    ticketOf(await rsvp(buyer, event.eventId, { code: 'half', payment: payment(buyer, offer!) }));
    expect(await balanceOf(buyer)).toBe('4500');
    await ticketing.deliver(fixtures.cancelled(event));
    expect(await balanceOf(buyer)).toBe('5000');
  });
});
