/**
 * What an MCP session may still spend on paid RSVPs, in atomic units (`townhall mcp --budget`).
 * A payment reserves its price before it is signed and gives it back if nothing was charged, so
 * two paid RSVPs at once can never spend more than the budget together.
 */
export class Budget {
  private left: bigint;

  constructor(amount: bigint) {
    if (amount < 0n) throw new RangeError('a budget is not negative');
    this.left = amount;
  }

  get remaining(): bigint {
    return this.left;
  }

  /** Takes `amount` from what is left, or answers false (nothing taken). */
  reserve(amount: bigint): boolean {
    if (amount > this.left) return false;
    this.left -= amount;
    return true;
  }

  /** Gives back a reservation that was not spent. */
  release(amount: bigint): void {
    this.left += amount;
  }

  /** The person approved `amount` more for this session (MCP elicitation). */
  raise(amount: bigint): void {
    this.left += amount;
  }
}
