import { createSolanaRpc, signature as toSignature } from '@solana/kit';
import type { Blockhash } from '@solana/kit';
import type { PaymentPayload } from '../payload.js';
import { readExactSvmTransfer } from './exact-svm-transfer.js';
import {
  DEFAULT_SEARCH_BOUNDS,
  PaymentSearch,
  type ChainSearchBounds,
  type ChainSearchProgress,
} from './payment-search.js';

/** What the chain says of a payment sent to a facilitator. */
export type ChainVerdict =
  /** It landed and the transfer happened. */
  | { state: 'landed'; transaction: string }
  /** It landed and failed: nothing moved, and it cannot land again. */
  | { state: 'failed'; transaction: string; error: string }
  /** It never landed and never can: its blockhash is no longer valid, and a complete search found nothing. */
  | { state: 'expired' }
  /** Not landed yet, and still could: its blockhash is valid. */
  | { state: 'unknown' }
  /**
   * Its blockhash is no longer valid, but this look stopped at its bound before the search was
   * complete: undecided. The next look goes on from `progress`.
   */
  | { state: 'incomplete'; progress: ChainSearchProgress };

/** What is known of a payment when the chain is asked about it. */
export interface PaymentLook {
  /**
   * When our record of the payment was written (a ticket's settlement row, a refund's claim):
   * its transaction cannot have landed before, since the facilitator adds the fee payer's
   * signature only at /settle, after that record.
   */
  since: Date;
  /** The transaction the facilitator named for it, if it named one. */
  knownTransaction?: string | undefined;
  /** Where the last look's search stopped, if it stopped before it was complete. */
  progress?: ChainSearchProgress | undefined;
}

/**
 * The chain itself, asked over Solana JSON-RPC, for reconciling a payment whose facilitator did
 * not say what happened (it timed out, it answered `settlement_pending`, or it says a settlement
 * is a duplicate of one it may have finished). A facilitator's memory of a settlement is
 * in-process and short (@x402/svm keeps it two minutes); the chain's is not. The transaction id
 * is the fee payer's signature, added only at settle, so a payment whose id is unknown is found
 * by its message in the history of its token accounts (PaymentSearch). One whose blockhash
 * expired can never land; it is `expired` only once a complete search found it nowhere, since
 * the answer releases a seat or has a refund paid again.
 */
export class SolanaChain {
  private readonly rpc: ReturnType<typeof createSolanaRpc>;

  constructor(
    readonly rpcUrl: string,
    private readonly bounds: ChainSearchBounds = DEFAULT_SEARCH_BOUNDS,
  ) {
    this.rpc = createSolanaRpc(rpcUrl);
  }

  /**
   * The progress a caller stored (JSON, read back), or undefined when it is not one: the search
   * then starts again from the newest entries, which costs a look and misses nothing.
   */
  progressOf(stored: unknown): ChainSearchProgress | undefined {
    if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return undefined;
    const valid = Object.entries(stored).every(
      ([key, cursor]) => (key === 'source' || key === 'destination') && typeof cursor === 'string',
    );
    return valid ? (stored as ChainSearchProgress) : undefined;
  }

  async verdict(payment: PaymentPayload, look: PaymentLook): Promise<ChainVerdict> {
    const transfer = readExactSvmTransfer(payment);
    if (look.knownTransaction) {
      const known = await this.statusOf(look.knownTransaction);
      if (known) return known;
    }
    // Blockhash first: if it is no longer valid, anything that landed did so before this read,
    // so the search below, which starts after it, sees it.
    const { value: valid } = await this.rpc
      .isBlockhashValid(transfer.blockhash as Blockhash, { commitment: 'confirmed' })
      .send();
    // Progress is kept only by looks that began after the blockhash expired: before that, the
    // payment could still land above where they started.
    const search = new PaymentSearch(this.rpc, transfer, look.since, this.bounds);
    const outcome = await search.run(valid ? {} : look.progress);
    switch (outcome.state) {
      case 'found': {
        const { transaction, error } = outcome.landed;
        return error === null
          ? { state: 'landed', transaction }
          : { state: 'failed', transaction, error: JSON.stringify(error, bigints) };
      }
      case 'complete':
        return valid ? { state: 'unknown' } : { state: 'expired' };
      case 'incomplete':
        return valid ? { state: 'unknown' } : { state: 'incomplete', progress: outcome.progress };
    }
  }

  private async statusOf(transaction: string): Promise<ChainVerdict | undefined> {
    const { value } = await this.rpc
      .getSignatureStatuses([toSignature(transaction)], { searchTransactionHistory: true })
      .send();
    const status = value[0];
    if (!status || status.confirmationStatus === 'processed') return undefined;
    return status.err === null
      ? { state: 'landed', transaction }
      : { state: 'failed', transaction, error: JSON.stringify(status.err, bigints) };
  }
}

function bigints(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
