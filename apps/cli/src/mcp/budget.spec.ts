import { Budget } from './budget.js';

describe('Budget', () => {
  it('reserves within what is left and never below zero; a release gives it back', () => {
    const budget = new Budget(5_000_000n);
    expect(budget.reserve(2_500_000n)).toBe(true);
    expect(budget.reserve(2_500_001n)).toBe(false);
    expect(budget.remaining).toBe(2_500_000n);
    expect(budget.reserve(2_500_000n)).toBe(true);
    expect(budget.reserve(1n)).toBe(false);
    budget.release(2_500_000n);
    expect(budget.remaining).toBe(2_500_000n);
  });

  it('at zero pays for nothing but a free ticket; raised by an approval, it covers exactly that payment', () => {
    const budget = new Budget(0n);
    expect(budget.reserve(0n)).toBe(true);
    expect(budget.reserve(1n)).toBe(false);
    budget.raise(2_500_000n);
    expect(budget.reserve(2_500_000n)).toBe(true);
    expect(budget.remaining).toBe(0n);
  });

  it('two reservations at once cannot spend more than the budget together', () => {
    const budget = new Budget(3_000_000n);
    const granted = [2_500_000n, 2_500_000n].map((price) => budget.reserve(price));
    expect(granted).toEqual([true, false]);
    expect(() => new Budget(-1n)).toThrow(RangeError);
  });
});
