import type { EventFieldsInput } from '@townhall/contracts';
import { AgentClient, type RsvpTicketResult } from '@townhall/sdk';
import { problemOf, refusal, StandaloneProcess, Topology } from '@townhall/testing';
import type { PaymentRequirements } from '@townhall/x402';

/*
 * docs/product.md "Codes": a host's codes through the gateway, as either mode runs them. Percent
 * and fixed discounts, a free code, a hidden tier unlocked, an expired and a removed code, and
 * 50 buyers racing for a code of 5 uses: exactly 5 tickets carry it, and nobody else pays.
 */

const HOUR = 3_600_000;

function anEvent(overrides: Partial<EventFieldsInput> = {}): EventFieldsInput {
  const startsAt = new Date(Date.now() + 24 * HOUR);
  return {
    title: 'A workshop with codes',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 100,
    ...overrides,
  };
}

async function hostsCodes(client: () => AgentClient): Promise<void> {
  const host = client();
  const event = await host.events.create(
    anEvent({
      ticketing: {
        mode: 'tiered',
        tiers: [
          { id: 'general', name: 'General', price: '1000', capacity: 80 },
          { id: 'vip', name: 'VIP', price: '5000', capacity: 10 },
          { id: 'press', name: 'Press', price: '3000', capacity: 5, hidden: true },
        ],
      },
    }),
  );
  expect(event.ticketing).toMatchObject({ tiers: [{}, {}, { id: 'press', hidden: true }] });
  const funded = async () => {
    const agent = client();
    await agent.ledger.faucet('100000');
    return agent;
  };
  const offered = async (agent: AgentClient, body: Record<string, string> = {}) => {
    const refused = await problemOf(agent.request('POST', `/events/${event.id}/rsvp`, { body }));
    expect(refused.status).toBe(402);
    return (refused.problem['accepts'] as PaymentRequirements[]).map((o) => [
      o.extra.tierId,
      o.maxAmountRequired,
    ]);
  };
  const balanceOf = async (agent: AgentClient) =>
    (await agent.ledger.balance()).balances.find((b) => b.asset === 'USDC')?.amount ?? '0';

  const created = await host.codes.create(event.id, { code: 'Spring25', percentOff: 25 });
  expect(created).toMatchObject({ code: 'Spring25', percentOff: 25, uses: 0, maxUses: null });
  await host.codes.create(event.id, { code: 'minus-300', amountOff: '300', tierIds: ['general'] });
  await host.codes.create(event.id, { code: 'comp', free: true });
  await host.codes.create(event.id, { code: 'press', unlocksTierIds: ['press'], tierIds: ['press'] });
  expect(await refusal(host.codes.create(event.id, { code: 'SPRING25', percentOff: 5 }))).toEqual({
    status: 409,
    code: 'code.taken',
  });
  const stranger = client();
  expect(await refusal(stranger.codes.list(event.id))).toEqual({ status: 403, code: 'role.forbidden' });
  for (const bad of [
    { code: 'x', percentOff: 5 },
    { code: 'ok-code', percentOff: 101 },
    { code: 'ok-code', percentOff: 5, amountOff: '1' },
    { code: 'nul\u0000', percentOff: 5 },
    { code: 'ok-code', amountOff: '-1' },
  ])
    expect(await refusal(host.codes.create(event.id, bad as never))).toEqual({
      status: 400,
      code: 'validation.failed',
    });

  // The list price without a code; hidden tiers are not offered.
  const buyer = await funded();
  expect(await offered(buyer)).toEqual([
    ['general', '1000'],
    ['vip', '5000'],
  ]);
  expect(await offered(buyer, { code: 'SPRING25' })).toEqual([
    ['general', '750'],
    ['vip', '3750'],
  ]);
  expect(await offered(buyer, { code: 'Minus-300' })).toEqual([['general', '700']]);
  expect(await offered(buyer, { code: 'press' })).toEqual([['press', '3000']]);
  expect(await refusal(buyer.tickets.rsvp(event.id, { tierId: 'press', maxPrice: '3000' }))).toEqual({
    status: 400,
    code: 'validation.failed',
  });
  expect(
    await refusal(buyer.tickets.rsvp(event.id, { code: 'minus-300', tierId: 'vip', maxPrice: '9000' })),
  ).toEqual({
    status: 409,
    code: 'code.not_for_tier',
  });
  expect(await refusal(buyer.tickets.rsvp(event.id, { code: 'none-such', maxPrice: '9000' }))).toEqual({
    status: 404,
    code: 'code.not_found',
  });

  // Bought at the discounted price; the ticket and its ledger entry record the code.
  const bought = (await buyer.tickets.rsvp(event.id, {
    code: 'spring25',
    tierId: 'vip',
    maxPrice: '3750',
  })) as RsvpTicketResult;
  expect(bought).toMatchObject({ created: true, ticket: { tierId: 'vip', price: '3750', code: 'Spring25' } });
  expect(await balanceOf(buyer)).toBe('96250');
  expect((await buyer.ledger.entries()).items.find((e) => e.type === 'EVENT_TICKET')).toMatchObject({
    amount: '-3750',
    code: 'Spring25',
  });
  // A free code: the ticket at once, no payment.
  const guest = client();
  const free = (await guest.tickets.rsvp(event.id, { code: 'COMP', tierId: 'general' })) as RsvpTicketResult;
  expect(free).toMatchObject({ created: true, ticket: { price: '0', code: 'comp' } });
  // The hidden tier, unlocked.
  const press = await funded();
  const unlocked = (await press.tickets.rsvp(event.id, {
    code: 'PRESS',
    maxPrice: '3000',
  })) as RsvpTicketResult;
  expect(unlocked).toMatchObject({
    created: true,
    ticket: { tierId: 'press', price: '3000', code: 'press' },
  });

  // Expired, and removed.
  await host.codes.create(event.id, {
    code: 'early',
    percentOff: 10,
    expiresAt: new Date(Date.now() - 1000).toISOString(),
  });
  // (Asked by an agent with no ticket: one who holds a ticket is answered with it, code or not.)
  expect(await refusal(stranger.tickets.rsvp(event.id, { code: 'early', maxPrice: '9000' }))).toEqual({
    status: 409,
    code: 'code.expired',
  });
  expect(await host.codes.remove(event.id, 'MINUS-300')).toMatchObject({ code: 'minus-300' });
  expect(await refusal(host.codes.remove(event.id, 'minus-300'))).toEqual({
    status: 404,
    code: 'code.not_found',
  });

  // Fifty buyers at once for a code of five uses: exactly five tickets carry it.
  await host.codes.create(event.id, { code: 'FIVE', percentOff: 50, maxUses: 5, tierIds: ['general'] });
  const racers = await Promise.all(Array.from({ length: 50 }, funded));
  const outcomes = await Promise.allSettled(
    racers.map((racer) => racer.tickets.rsvp(event.id, { code: 'five', maxPrice: '500' })),
  );
  const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
  expect(won).toHaveLength(5);
  for (const outcome of outcomes)
    if (outcome.status === 'rejected')
      expect(outcome.reason).toMatchObject({ status: 409, code: 'code.exhausted' });
  const balances = await Promise.all(racers.map(balanceOf));
  expect(balances.filter((b) => b === '99500')).toHaveLength(5);
  expect(balances.filter((b) => b === '100000')).toHaveLength(45);
  const uses = Object.fromEntries(
    (await host.codes.list(event.id)).items.map((code) => [code.code, code.uses]),
  );
  expect(uses).toEqual({ Spring25: 1, comp: 1, press: 1, early: 0, FIVE: 5 });
}

describe('codes (distributed)', () => {
  let topology: Topology;
  beforeAll(async () => {
    topology = await Topology.start({ env: { LEDGER_FAUCET: 'true' } });
  });
  afterAll(async () => {
    await topology?.stop();
  });

  it('discounts, frees and unlocks by code, and gives a code of 5 uses to exactly 5 of 50 buyers', async () => {
    await hostsCodes(() => topology.client());
  });
});

describe('codes (standalone)', () => {
  const AUDIENCE = 'https://codes.townhall.test';
  let standalone: StandaloneProcess;
  beforeAll(async () => {
    standalone = await StandaloneProcess.start({
      PUBLIC_BASE_URL: AUDIENCE,
      LEDGER_FAUCET: 'true',
      // Fifty buyers from this one address sign 200 requests within a second or so: the address's
      // budget (200 a second) is another test's subject, not a race this one should run.
      RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: '0',
    });
  });
  afterAll(async () => {
    await standalone?.stop();
  });

  it('discounts, frees and unlocks by code, and gives a code of 5 uses to exactly 5 of 50 buyers', async () => {
    await hostsCodes(() => new AgentClient({ baseUrl: standalone.baseUrl, audience: AUDIENCE }));
  });
});
