import { Budget, type TicketLookup } from './budget.js';

const USDC = 'USDC';

describe('Budget', () => {
  it('reserves within what is left and never below zero; a release gives it back', () => {
    const budget = new Budget(5_000_000n);
    const first = budget.reserve(2_500_000n, USDC)!;
    expect(budget.reserve(2_500_001n, USDC)).toBeUndefined();
    expect(budget.remaining).toBe(2_500_000n);
    expect(budget.reserve(2_500_000n, USDC)).toBeDefined();
    expect(budget.reserve(1n, USDC)).toBeUndefined();
    first.release();
    expect(budget.remaining).toBe(2_500_000n);
    expect(() => first.release()).toThrow(/released/);
    expect(() => new Budget(-1n)).toThrow(RangeError);
  });

  it('two reservations at once cannot spend more than the budget together', () => {
    const budget = new Budget(3_000_000n);
    const granted = [2_500_000n, 2_500_000n].map((price) => budget.reserve(price, USDC) !== undefined);
    expect(granted).toEqual([true, false]);
  });

  it('an approval covers its one purchase: spent or not, the budget stays where it was', () => {
    const budget = new Budget(1_000_000n);
    const failed = budget.approve(2_500_000n, USDC);
    failed.release();
    expect(budget.remaining).toBe(1_000_000n);
    // Nothing left over from the lapsed approval: the same price is still beyond the budget.
    expect(budget.reserve(2_500_000n, USDC)).toBeUndefined();
    budget.approve(2_500_000n, USDC).spend();
    expect(budget.remaining).toBe(1_000_000n);
    expect(budget.reserve(2_500_000n, USDC)).toBeUndefined();
  });

  it('counts one asset: --asset, or the first reservation; another asset is never taken', () => {
    const named = new Budget(5_000_000n, 'EURC');
    expect(named.asset).toBe('EURC');
    expect(named.takes(USDC)).toBe(false);
    expect(() => named.reserve(1n, USDC)).toThrow(/EURC/);
    expect(named.remaining).toBe(5_000_000n);

    const first = new Budget(5_000_000n);
    expect(first.asset).toBeUndefined();
    expect(first.takes('EURC')).toBe(true);
    // A price beyond the budget takes nothing, and fixes nothing.
    expect(first.reserve(5_000_001n, 'EURC')).toBeUndefined();
    expect(first.asset).toBeUndefined();
    first.reserve(1n, USDC)!.release();
    expect(first.asset).toBe(USDC);
    expect(first.takes('EURC')).toBe(false);
    expect(() => first.approve(1n, 'EURC')).toThrow(/USDC/);
  });

  describe('a payment whose answer was lost', () => {
    let now: number;
    let budget: Budget;
    const clock = () => now;
    const lookups: string[] = [];
    const answering =
      (held: boolean | Error): TicketLookup =>
      async (eventId) => {
        lookups.push(eventId);
        if (held instanceof Error) throw held;
        return held;
      };

    beforeEach(() => {
      now = 1_000_000;
      lookups.length = 0;
      budget = new Budget(3_000_000n, undefined, clock);
    });

    it('stays reserved while the lookup cannot answer, and is spent once it finds the ticket', async () => {
      const reservation = budget.reserve(2_500_000n, USDC)!;
      reservation.awaitTicket('e1', now + 330_000);
      expect(budget.remaining).toBe(500_000n);
      expect(budget.unconfirmed).toBe(2_500_000n);
      expect(budget.awaitsTicket('e1')).toBe(true);

      expect(await budget.confirm(answering(new Error('ECONNRESET')))).toEqual([]);
      expect(budget.remaining).toBe(500_000n);
      expect(budget.unconfirmed).toBe(2_500_000n);

      expect(await budget.confirm(answering(true))).toEqual([
        { eventId: 'e1', amount: 2_500_000n, outcome: 'spent' },
      ]);
      expect(reservation.state).toBe('spent');
      expect(budget.remaining).toBe(500_000n);
      expect(budget.unconfirmed).toBe(0n);
      expect(budget.awaitsTicket('e1')).toBe(false);
      expect(lookups).toEqual(['e1', 'e1']);
    });

    it('no ticket gives it back only once the signed payment can no longer be taken', async () => {
      const reservation = budget.reserve(2_500_000n, USDC)!;
      reservation.awaitTicket('e1', now + 330_000);
      // Not found while the payment is still valid: it may be in flight at Townhall.
      now += 329_999;
      expect(await budget.confirm(answering(false))).toEqual([]);
      expect(budget.remaining).toBe(500_000n);
      now += 1;
      expect(await budget.confirm(answering(false))).toEqual([
        { eventId: 'e1', amount: 2_500_000n, outcome: 'released' },
      ]);
      expect(reservation.state).toBe('released');
      expect(budget.remaining).toBe(3_000_000n);
      expect(budget.unconfirmed).toBe(0n);
    });

    it('a ticket an RSVP finds held confirms it without a lookup', async () => {
      budget.reserve(1_000_000n, USDC)!.awaitTicket('e1', now + 330_000);
      budget.reserve(1_000_000n, USDC)!.awaitTicket('e2', now + 330_000);
      budget.ticketHeld('e1');
      expect(budget.unconfirmed).toBe(1_000_000n);
      expect(budget.awaitsTicket('e1')).toBe(false);
      expect(budget.awaitsTicket('e2')).toBe(true);
      await budget.confirm(answering(true));
      expect(lookups).toEqual(['e2']);
      expect(budget.remaining).toBe(1_000_000n);
    });

    it('an approved one is looked up too, but whatever it turns out, the budget does not move', async () => {
      const approved = budget.approve(5_000_000n, USDC);
      approved.awaitTicket('e1', now);
      expect(budget.unconfirmed).toBe(0n);
      expect(budget.awaitingTickets).toBe(1);
      expect(budget.awaitsTicket('e1')).toBe(true);
      await budget.confirm(answering(false));
      expect(approved.state).toBe('released');
      expect(budget.remaining).toBe(3_000_000n);
    });

    it('one confirmation at a time: a second call shares the running one', async () => {
      budget.reserve(1n, USDC)!.awaitTicket('e1', now);
      let answer!: (held: boolean) => void;
      const slow: TicketLookup = () => new Promise((resolve) => (answer = resolve));
      const first = budget.confirm(slow);
      const second = budget.confirm(answering(true));
      expect(second).toBe(first);
      answer(true);
      expect(await second).toEqual([{ eventId: 'e1', amount: 1n, outcome: 'spent' }]);
      expect(lookups).toEqual([]);
    });
  });
});
