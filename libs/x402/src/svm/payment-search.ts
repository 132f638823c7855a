import { address, getBase64Encoder, getTransactionDecoder, signature as toSignature } from '@solana/kit';
import type { createSolanaRpc } from '@solana/kit';
import type { ExactSvmTransfer } from './exact-svm-transfer.js';

type SolanaRpc = ReturnType<typeof createSolanaRpc>;

/**
 * Where a search of a payment's token accounts that has not finished stopped. Each account's
 * history was checked from its newest entry (at a look that began after the payment's blockhash
 * had expired, so nothing newer can be the payment) down to `before`, exclusive; the next look
 * goes on from there. An account without a cursor starts again from its newest entry.
 */
export interface ChainSearchProgress {
  source?: string;
  destination?: string;
}

/** How much one look may do, and how far back in time it must reach. */
export interface ChainSearchBounds {
  /** Signatures per getSignaturesForAddress page (Solana's limit is 1 to 1,000). */
  pageSize: number;
  /** Pages one look reads of each account before it stops and leaves the rest to the next. */
  pagesPerAccount: number;
  /** Transactions one look fetches (getTransaction) of each account, to compare with the payment. */
  fetchesPerAccount: number;
  /**
   * How much earlier than our record of the payment a chain `blockTime` may read for the same
   * moment: the search goes back to the record's time less this.
   */
  clockSkewMarginMs: number;
}

/**
 * The bounds a look runs with, and why:
 * - 1,000 signatures a page, the RPC's most: the fewest calls for a given depth.
 * - 5 pages an account (5,000 entries each, 10 calls for both accounts): about as much as one look
 *   reads on a rate-limited public RPC within the few seconds before reconciliation's lease on the
 *   payment could pass to another replica. Deeper history is read by the next looks, which go on
 *   where this one stopped (ChainSearchProgress), so the bound slows a search and never ends one.
 * - 50 transactions fetched an account a look: each is one call (a memo that names the payment,
 *   or an RPC that lists no memos, makes an entry a candidate); a look stays within seconds even
 *   when someone who gains from a wrong verdict floods an account with transfers carrying our
 *   memo. Each account has its own, so a source flooded that way leaves the destination's search
 *   its full budget.
 * - 10 minutes of clock margin: `blockTime` is the validators' stake-weighted clock, an estimate
 *   of when the block was made, and our record's time is the database's clock. In practice they
 *   agree within seconds; a margin a hundred times that costs a few more pages of history,
 *   whereas one too small would call a landed payment expired and have it paid again.
 */
export const DEFAULT_SEARCH_BOUNDS: ChainSearchBounds = {
  pageSize: 1_000,
  pagesPerAccount: 5,
  fetchesPerAccount: 50,
  clockSkewMarginMs: 10 * 60_000,
};

/** The payment's transaction as it landed: its id (the fee payer's signature) and its error, if it failed. */
export interface LandedPayment {
  transaction: string;
  error: unknown;
}

export type SearchOutcome =
  | { state: 'found'; landed: LandedPayment }
  /** Every entry of an account from its newest back past the payment's creation was checked. */
  | { state: 'complete' }
  | { state: 'incomplete'; progress: ChainSearchProgress };

type AccountOutcome =
  | { state: 'found'; landed: LandedPayment }
  | { state: 'complete' }
  | { state: 'stopped'; before: string | undefined };

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/**
 * Looks for a payment's transaction in the histories of the token accounts its transfer touches,
 * newest first, back past the moment our record of it was written (`since`): it cannot have
 * landed earlier, because the facilitator signs it as fee payer only at /settle, after that
 * record. The source is searched first; the destination only if the source's search stopped at
 * its bound, since a complete search of either account is a complete search for the payment
 * (its transaction touches both).
 *
 * Complete means: a page shorter than asked (the account's history ends), or an entry whose
 * `blockTime` is before `since` less the clock margin. An entry without a `blockTime` ends
 * nothing. Anything less is incomplete, with the progress the next look resumes from.
 */
export class PaymentSearch {
  private readonly floorMs: number;

  constructor(
    private readonly rpc: SolanaRpc,
    private readonly transfer: ExactSvmTransfer,
    since: Date,
    private readonly bounds: ChainSearchBounds,
  ) {
    this.floorMs = since.getTime() - bounds.clockSkewMarginMs;
  }

  async run(progress: ChainSearchProgress = {}): Promise<SearchOutcome> {
    const source = await this.searchAccount(this.transfer.source, progress.source);
    if (source.state !== 'stopped') return source;
    const destination = await this.searchAccount(this.transfer.destination, progress.destination);
    if (destination.state !== 'stopped') return destination;
    return {
      state: 'incomplete',
      progress: {
        ...(source.before ? { source: source.before } : {}),
        ...(destination.before ? { destination: destination.before } : {}),
      },
    };
  }

  private async searchAccount(account: string, resumeBefore: string | undefined): Promise<AccountOutcome> {
    let before = resumeBefore;
    let fetches = this.bounds.fetchesPerAccount;
    for (let page = 0; page < this.bounds.pagesPerAccount; page += 1) {
      const entries = await this.rpc
        .getSignaturesForAddress(address(account), {
          limit: this.bounds.pageSize,
          commitment: 'confirmed',
          ...(before ? { before: toSignature(before) } : {}),
        })
        .send();
      // Solana answers a `before` it does not know with an empty page, as it answers the end of
      // a history: only a cursor the node still knows makes an empty page the end.
      if (entries.length === 0 && before !== undefined && !(await this.knows(before))) {
        return { state: 'stopped', before: undefined };
      }
      for (const entry of entries) {
        if (entry.blockTime !== null && Number(entry.blockTime) * 1_000 < this.floorMs) {
          return { state: 'complete' };
        }
        if (this.mayBe(entry.memo)) {
          if (fetches === 0) return { state: 'stopped', before };
          fetches -= 1;
          const compared = await this.compare(entry.signature);
          // Listed but not readable (yet): this entry cannot be ruled out, so the search stops before it.
          if (compared === 'unreadable') return { state: 'stopped', before };
          if (compared !== 'other') return { state: 'found', landed: compared };
        }
        before = entry.signature;
      }
      if (entries.length < this.bounds.pageSize) return { state: 'complete' };
    }
    return { state: 'stopped', before };
  }

  /**
   * Whether an entry could be the payment, from the memo the RPC lists for it (Solana's form:
   * `[length] text` per memo instruction, joined by `; `). Every x402 payment here carries a memo,
   * so an entry whose listed memos do not contain it is another transaction; an entry listed
   * without memos may be an RPC that does not report them, so it is fetched.
   */
  private mayBe(listedMemo: string | null): boolean {
    const memo = this.transfer.memo;
    return listedMemo === null || memo === undefined || listedMemo.includes(memo);
  }

  private async compare(signature: string): Promise<LandedPayment | 'other' | 'unreadable'> {
    const landed = await this.rpc
      .getTransaction(toSignature(signature), {
        encoding: 'base64',
        maxSupportedTransactionVersion: 0,
        commitment: 'confirmed',
      })
      .send();
    if (!landed) return 'unreadable';
    const bytes = getBase64Encoder().encode(landed.transaction[0]);
    const message = Uint8Array.from(getTransactionDecoder().decode(bytes).messageBytes);
    if (!sameBytes(message, this.transfer.message)) return 'other';
    return { transaction: signature, error: landed.meta?.err ?? null };
  }

  private async knows(signature: string): Promise<boolean> {
    const { value } = await this.rpc
      .getSignatureStatuses([toSignature(signature)], { searchTransactionHistory: true })
      .send();
    return value[0] !== null && value[0] !== undefined;
  }
}
