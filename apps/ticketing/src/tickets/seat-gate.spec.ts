import { DomainError } from '@townhall/contracts';
import { SeatGate } from './seat-gate.js';

/** A purchase that ends when told to, taking a seat or not. */
function purchaseControl() {
  const pending: Array<(tookSeat: boolean | Error) => void> = [];
  let inFlight = 0;
  let most = 0;
  return {
    run: () =>
      new Promise<boolean>((resolve, reject) => {
        inFlight++;
        most = Math.max(most, inFlight);
        pending.push((outcome) => {
          inFlight--;
          if (outcome instanceof Error) reject(outcome);
          else resolve(outcome);
        });
      }),
    /** Ends the oldest purchase in flight. */
    end: (outcome: boolean | Error) => pending.shift()!(outcome),
    get inFlight() {
      return inFlight;
    },
    get most() {
      return most;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const codeOf = (result: PromiseSettledResult<unknown>) =>
  result.status === 'rejected' ? (result.reason as DomainError).code : 'bought';

describe('SeatGate: at most as many purchases of a tier in flight as it has seats left', () => {
  const gate = () => new SeatGate({ admissionWaitMs: 1_000 });

  it('admits a purchase without the seats left only while the tier is busy here and one more fits at once', async () => {
    const seats = gate();
    const control = purchaseControl();
    const took = (tookSeat: boolean) => tookSeat;
    // No purchase of the tier in flight: the seats left must be read.
    expect(seats.admitBusy('e1', 'busy', control.run, took)).toBeUndefined();
    const first = seats.through('e1', 'busy', 2, control.run, took);
    await settle();
    const second = seats.admitBusy('e1', 'busy', control.run, took);
    expect(second).toBeDefined();
    await settle();
    expect(control.inFlight).toBe(2);
    // Both seats in flight: a third would wait, which only the read path decides.
    expect(seats.admitBusy('e1', 'busy', control.run, took)).toBeUndefined();
    expect(control.inFlight).toBe(2);
    control.end(true);
    control.end(true);
    expect([await first, await second]).toEqual([true, true]);
    // The gate is gone with its last purchase.
    expect(seats.admitBusy('e1', 'busy', control.run, took)).toBeUndefined();
  });

  it('lets 5 of 20 buyers through for 5 seats and refuses the other 15 once those took them', async () => {
    const seats = gate();
    const control = purchaseControl();
    const all = Promise.allSettled(
      Array.from({ length: 20 }, () => seats.through('e1', 'hot', 5, control.run, (tookSeat) => tookSeat)),
    );
    await settle();
    expect(control.inFlight).toBe(5);
    for (let i = 0; i < 5; i++) control.end(true);
    const results = (await all).map(codeOf);
    expect(results.filter((code) => code === 'bought')).toHaveLength(5);
    expect(results.filter((code) => code === 'capacity.sold_out')).toHaveLength(15);
    expect(control.most).toBe(5);
  });

  it('admits the next in line when a purchase in flight took no seat (its payment failed)', async () => {
    const seats = gate();
    const control = purchaseControl();
    const first = seats.through('e1', 'hot', 1, control.run, (tookSeat) => tookSeat);
    const second = seats.through('e1', 'hot', 1, control.run, (tookSeat) => tookSeat);
    await settle();
    expect(control.inFlight).toBe(1);
    control.end(new DomainError('payment.insufficient_funds', 'poor'));
    await expect(first).rejects.toMatchObject({ code: 'payment.insufficient_funds' });
    await settle();
    expect(control.inFlight).toBe(1);
    control.end(true);
    await expect(second).resolves.toBe(true);
  });

  it('refuses everyone waiting once the database said the tier is sold out', async () => {
    const seats = gate();
    const control = purchaseControl();
    const calls = [1, 2, 3].map(() => seats.through('e1', 'hot', 1, control.run, (tookSeat) => tookSeat));
    await settle();
    control.end(new DomainError('capacity.sold_out', 'another replica sold it'));
    const results = (await Promise.allSettled(calls)).map(codeOf);
    expect(results).toEqual(['capacity.sold_out', 'capacity.sold_out', 'capacity.sold_out']);
    expect(control.most).toBe(1);
  });

  it('sheds a buyer that waited longer than the admission wait while purchases hang', async () => {
    const seats = new SeatGate({ admissionWaitMs: 50 });
    const control = purchaseControl();
    const first = seats.through('e1', 'hot', 1, control.run, (tookSeat) => tookSeat);
    const started = performance.now();
    await expect(seats.through('e1', 'hot', 1, control.run, (tookSeat) => tookSeat)).rejects.toMatchObject({
      code: 'service.overloaded',
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    control.end(true);
    await expect(first).resolves.toBe(true);
  });

  it('forgets a tier once nothing is in flight: the next buyer goes by what it read', async () => {
    const seats = gate();
    const control = purchaseControl();
    const first = seats.through('e1', 'hot', 1, control.run, (tookSeat) => tookSeat);
    await settle();
    control.end(true);
    await first;
    // A seat came back (a release, a capacity raised): the caller read 1 left, and goes through.
    const again = seats.through('e1', 'hot', 1, control.run, (tookSeat) => tookSeat);
    await settle();
    expect(control.inFlight).toBe(1);
    control.end(true);
    await expect(again).resolves.toBe(true);
  });

  it('keeps tiers and events apart', async () => {
    const seats = gate();
    const control = purchaseControl();
    const calls = [
      seats.through('e1', 'a', 1, control.run, (tookSeat) => tookSeat),
      seats.through('e1', 'b', 1, control.run, (tookSeat) => tookSeat),
      seats.through('e2', 'a', 1, control.run, (tookSeat) => tookSeat),
    ];
    await settle();
    expect(control.inFlight).toBe(3);
    for (let i = 0; i < 3; i++) control.end(true);
    expect(await Promise.all(calls)).toEqual([true, true, true]);
  });
});
