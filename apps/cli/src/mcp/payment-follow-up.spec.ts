import { jest } from '@jest/globals';
import { Budget } from './budget.js';
import { FOLLOW_UP_INTERVAL_MS, PaymentFollowUp } from './payment-follow-up.js';

describe('PaymentFollowUp', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('looks an unconfirmed payment up every 30 s until Townhall answers, then stops', async () => {
    const budget = new Budget(3_000_000n, 'USDC');
    const answers: Array<boolean | Error> = [new Error('503'), new Error('ECONNREFUSED'), true];
    const asked: number[] = [];
    const lines: string[] = [];
    const followUp = new PaymentFollowUp(
      budget,
      async () => {
        asked.push(Date.now());
        const next = answers.shift()!;
        if (next instanceof Error) throw next;
        return next;
      },
      (line) => lines.push(line),
    );
    budget.reserve(2_500_000n, 'USDC')!.awaitTicket('e1', 330_000);
    followUp.watch();
    for (let tick = 0; tick < 5; tick++) await jest.advanceTimersByTimeAsync(FOLLOW_UP_INTERVAL_MS);
    expect(asked).toEqual([30_000, 60_000, 90_000]);
    expect(budget.unconfirmed).toBe(0n);
    expect(budget.remaining).toBe(500_000n);
    expect(lines).toEqual([
      'townhall mcp: the payment of 2500000 for event e1 was taken (the ticket is held)',
    ]);
    followUp.close();
  });

  it('asks nothing when no payment is unconfirmed, and nothing after close', async () => {
    const budget = new Budget(1_000n);
    let asked = 0;
    const lines: string[] = [];
    const followUp = new PaymentFollowUp(
      budget,
      async () => {
        asked += 1;
        return false;
      },
      (line) => lines.push(line),
    );
    await followUp.confirm();
    expect(asked).toBe(0);
    budget.reserve(1_000n, 'USDC')!.awaitTicket('e1', Number.MAX_SAFE_INTEGER);
    followUp.watch();
    followUp.close();
    await jest.advanceTimersByTimeAsync(10 * FOLLOW_UP_INTERVAL_MS);
    expect(asked).toBe(0);
    expect(lines).toEqual([
      'townhall mcp: 1000 atomic units were never confirmed as paid or not: see tickets_mine (townhall tickets mine)',
    ]);
  });
});
