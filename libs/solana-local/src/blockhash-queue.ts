/**
 * The recent blockhashes a transaction may name, as a Solana bank keeps them: a real blockhash stays
 * usable for about 150 blocks (a minute), then a transaction naming it can never land.
 *
 * LiteSVM only knows its one latest blockhash and accepts nothing else (its check compares with that one),
 * so this queue is the chain's blockhash check and LiteSVM's own check is turned off: a blockhash is valid
 * for `lifetimeMs` of wall time after it became the latest one. Blocks advance lazily, when someone asks,
 * by the wall time elapsed since the last advance, so an idle chain does no work.
 */
export interface BlockhashQueueState {
  /** Block height (and slot: this chain skips none) of the latest blockhash. */
  height: number;
  /** Wall time (ms since the epoch) the height was last advanced to. */
  advancedAt: number;
  /** Oldest first; only those still valid are kept. */
  entries: { blockhash: string; height: number; issuedAt: number }[];
}

export interface RecentBlockhash {
  blockhash: string;
  lastValidBlockHeight: bigint;
}

/** Real Solana targets 400 ms per slot. */
const SLOT_MS = 400;

export class BlockhashQueue {
  /** Wall time per block: 400 ms, or less for short test lifetimes so a fresh blockhash always has time left. */
  readonly slotMs: number;
  /** How many blocks a blockhash outlives its own: `lastValidBlockHeight - height`. */
  readonly validBlocks: number;
  private readonly entries = new Map<string, { height: number; issuedAt: number }>();
  private height: number;
  private advancedAt: number;

  private constructor(
    readonly lifetimeMs: number,
    state: BlockhashQueueState,
  ) {
    this.slotMs = Math.min(SLOT_MS, Math.floor(lifetimeMs / 4));
    this.validBlocks = Math.ceil(lifetimeMs / this.slotMs);
    this.height = state.height;
    this.advancedAt = state.advancedAt;
    for (const entry of state.entries)
      this.entries.set(entry.blockhash, { height: entry.height, issuedAt: entry.issuedAt });
  }

  static start(lifetimeMs: number, firstBlockhash: string, now: number): BlockhashQueue {
    return new BlockhashQueue(lifetimeMs, {
      height: 0,
      advancedAt: now,
      entries: [{ blockhash: firstBlockhash, height: 0, issuedAt: now }],
    });
  }

  static restore(lifetimeMs: number, state: BlockhashQueueState): BlockhashQueue {
    return new BlockhashQueue(lifetimeMs, state);
  }

  /** Blocks due since the last advance (0 while the latest blockhash is younger than one slot). */
  blocksDue(now: number): number {
    // A clock set back must not move heights backwards or make blockhashes live forever.
    if (now < this.advancedAt) this.advancedAt = now;
    return Math.floor((now - this.advancedAt) / this.slotMs);
  }

  /** Records `blockhash` as the latest, `blocks` heights on; drops the ones that can no longer land. */
  advance(blocks: number, blockhash: string, now: number): void {
    this.height += blocks;
    this.advancedAt += blocks * this.slotMs;
    // Delete first: a Map keeps first-insertion order, and the latest must be the last entry.
    this.entries.delete(blockhash);
    this.entries.set(blockhash, { height: this.height, issuedAt: now });
    for (const [hash, entry] of this.entries)
      if (!this.isLive(entry.issuedAt, now) && hash !== blockhash) this.entries.delete(hash);
  }

  get blockHeight(): number {
    return this.height;
  }

  latest(): RecentBlockhash {
    const [blockhash, entry] = [...this.entries].at(-1) ?? [];
    if (blockhash === undefined || entry === undefined) throw new Error('the blockhash queue is empty');
    return { blockhash, lastValidBlockHeight: BigInt(entry.height + this.validBlocks) };
  }

  isValid(blockhash: string, now: number): boolean {
    const entry = this.entries.get(blockhash);
    return entry !== undefined && this.isLive(entry.issuedAt, now);
  }

  state(): BlockhashQueueState {
    return {
      height: this.height,
      advancedAt: this.advancedAt,
      entries: [...this.entries].map(([blockhash, entry]) => ({ blockhash, ...entry })),
    };
  }

  private isLive(issuedAt: number, now: number): boolean {
    // A clock set back (now < issuedAt) keeps a blockhash valid rather than killing every recent one.
    return now - issuedAt < this.lifetimeMs;
  }
}
