// The faucet's limits on the ticketing service alone (the service tier: libs/testing/src/service.ts):
// what one call may mint, and how many calls one agent may make in an hour.
import { generateAgentKey } from '@townhall/auth';
import { Ledger } from '@townhall/contracts';
import { refusalOf, type ServiceHarness } from '@townhall/testing/service';
import { TicketingFixtures } from './fixtures.js';

describe('the ledger faucet', () => {
  const fixtures = new TicketingFixtures();
  let ticketing: ServiceHarness;

  beforeAll(async () => {
    ticketing = await fixtures.start({ LEDGER_FAUCET: 'true', LEDGER_FAUCET_CALLS_PER_HOUR: '3' });
  });
  afterAll(async () => {
    await ticketing?.stop();
  });

  const faucet = (agentId: string, amount: string) => ticketing.send(Ledger.faucet, { amount }, agentId);

  it('mints at most 1,000,000 a call by default: more is 422 ledger.faucet_over_cap, and nothing is credited', async () => {
    const agent = generateAgentKey();
    await expect(faucet(agent.agentId, '1000000')).resolves.toMatchObject({
      type: 'FAUCET',
      amount: '1000000',
    });
    const refused = await refusalOf(faucet(agent.agentId, '1000001'));
    expect(refused).toMatchObject({ code: 'ledger.faucet_over_cap', status: 422 });
    expect(refused.errors).toEqual([{ field: 'amount', message: 'must be at most 1000000' }]);
    await expect(refusalOf(faucet(agent.agentId, '1' + '0'.repeat(20)))).resolves.toMatchObject({
      code: 'ledger.faucet_over_cap',
    });
    expect(await fixtures.balanceOf(agent)).toBe('1000000');
  });

  it('gives one agent LEDGER_FAUCET_CALLS_PER_HOUR calls an hour, even sent at once: the next is 429 with the seconds until one is free', async () => {
    const agent = generateAgentKey();
    const answers = await Promise.allSettled(Array.from({ length: 8 }, () => faucet(agent.agentId, '100')));
    expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(3);
    const refused = await refusalOf(faucet(agent.agentId, '100'));
    expect(refused).toMatchObject({ code: 'ledger.faucet_rate_limited', status: 429 });
    const seconds = refused.extensions?.['retryAfterSeconds'];
    expect(seconds).toBeGreaterThan(3_500);
    expect(seconds).toBeLessThanOrEqual(3_600);
    expect(await fixtures.balanceOf(agent)).toBe('300');
    const [entries] = await ticketing.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM ticketing.ledger_entries WHERE agent_id = $1 AND type = 'FAUCET'`,
      [agent.agentId],
    );
    expect(entries!.count).toBe(3);

    // Another agent has its own calls.
    await expect(faucet(generateAgentKey().agentId, '100')).resolves.toMatchObject({ amount: '100' });
  });

  it('counts only the last hour: calls older than an hour free their place', async () => {
    const earlier = (agentId: string, ago: string) =>
      ticketing.query(
        `INSERT INTO ticketing.ledger_entries (type, agent_id, amount, asset, created_at)
         SELECT 'FAUCET', $1, 10, 'USDC', now() - $2::interval FROM generate_series(1, 3)`,
        [agentId, ago],
      );
    const recent = generateAgentKey();
    await earlier(recent.agentId, '59 minutes');
    await expect(refusalOf(faucet(recent.agentId, '10'))).resolves.toMatchObject({
      code: 'ledger.faucet_rate_limited',
      extensions: { retryAfterSeconds: expect.any(Number) },
    });
    const old = generateAgentKey();
    await earlier(old.agentId, '1 hour 1 second');
    await expect(faucet(old.agentId, '10')).resolves.toMatchObject({ amount: '10' });
  });
});
