import {
  address,
  createSolanaRpc,
  getBase64Encoder,
  getTransactionDecoder,
  signature as toSignature,
} from '@solana/kit';
import type { Blockhash } from '@solana/kit';
import type { PaymentPayload } from '../payload.js';
import { readExactSvmTransfer } from './exact-svm-transfer.js';

/** What the chain says of a payment sent to a facilitator. */
export type ChainVerdict =
  /** It landed and the transfer happened. */
  | { state: 'landed'; transaction: string }
  /** It landed and failed: nothing moved, and it cannot land again. */
  | { state: 'failed'; transaction: string; error: string }
  /** It never landed and never can: its blockhash is no longer valid. */
  | { state: 'expired' }
  /** Not landed yet, and still could. */
  | { state: 'unknown' };

/** How far back a payer's token account history is searched for the payment (newest first). */
const HISTORY_LIMIT = 100;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/**
 * The chain itself, asked over Solana JSON-RPC, for reconciling a payment whose facilitator did
 * not say what happened (it timed out, it answered `settlement_pending`, or it says a settlement
 * is a duplicate of one it may have finished). A facilitator's memory of a settlement is
 * in-process and short (@x402/svm keeps it two minutes); the chain's is not. The transaction id
 * is the fee payer's signature, added only at settle, so a payment whose id is unknown is found
 * by its message among the recent transactions of the payer's token account; and one whose
 * blockhash expired without landing can never land, so its seat can be released safely.
 */
export class SolanaChain {
  private readonly rpc: ReturnType<typeof createSolanaRpc>;

  constructor(readonly rpcUrl: string) {
    this.rpc = createSolanaRpc(rpcUrl);
  }

  async verdict(payment: PaymentPayload, knownTransaction?: string): Promise<ChainVerdict> {
    const transfer = readExactSvmTransfer(payment);
    if (knownTransaction) {
      const known = await this.statusOf(knownTransaction);
      if (known) return known;
    }
    // Blockhash first: if it is no longer valid, anything that landed did so before this read,
    // so the search below sees it.
    const { value: valid } = await this.rpc
      .isBlockhashValid(transfer.blockhash as Blockhash, { commitment: 'confirmed' })
      .send();
    const found = await this.find(transfer.source, transfer.message);
    if (found) return found;
    return valid ? { state: 'unknown' } : { state: 'expired' };
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

  private async find(source: string, message: Uint8Array): Promise<ChainVerdict | undefined> {
    const history = await this.rpc
      .getSignaturesForAddress(address(source), { limit: HISTORY_LIMIT, commitment: 'confirmed' })
      .send();
    for (const entry of history) {
      const landed = await this.rpc
        .getTransaction(entry.signature, {
          encoding: 'base64',
          maxSupportedTransactionVersion: 0,
          commitment: 'confirmed',
        })
        .send();
      if (!landed) continue;
      const bytes = getBase64Encoder().encode(landed.transaction[0]);
      if (!sameBytes(Uint8Array.from(getTransactionDecoder().decode(bytes).messageBytes), message)) continue;
      const error = landed.meta?.err ?? null;
      return error === null
        ? { state: 'landed', transaction: entry.signature }
        : { state: 'failed', transaction: entry.signature, error: JSON.stringify(error, bigints) };
    }
    return undefined;
  }
}

function bigints(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
