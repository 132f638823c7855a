import type { TransactionErrorJson } from './transaction-error.js';

/** One inner (CPI) instruction as Solana's JSON-RPC lists it: indexes into the account keys, base58 data. */
export interface InnerInstructionRecord {
  programIdIndex: number;
  accounts: number[];
  data: string;
  stackHeight: number;
}

/** A transaction that landed: it ran (successfully or not) and paid its fee. */
export interface ProcessedTransaction {
  signature: string;
  /** Order of processing over the chain's whole life; `before`/`until` cursors compare it. */
  sequence: number;
  slot: number;
  /** Unix seconds. */
  blockTime: number;
  /** The wire transaction, base64, exactly as it was sent (with every signature). */
  transaction: string;
  version: 'legacy' | 0 | 1;
  err: TransactionErrorJson | null;
  fee: bigint;
  logs: string[];
  computeUnitsConsumed: bigint;
  /** The message's static account keys, in order. */
  accountKeys: string[];
  preBalances: bigint[];
  postBalances: bigint[];
  /** Solana's `memo` field of getSignaturesForAddress: `[len] text` per memo instruction, joined by `; `. */
  memo: string | null;
  innerInstructions: { index: number; instructions: InnerInstructionRecord[] }[];
}

/** The JSON file form: bigints as decimal strings (JSON numbers would lose precision past 2^53). */
export type ProcessedTransactionJson = Omit<
  ProcessedTransaction,
  'fee' | 'computeUnitsConsumed' | 'preBalances' | 'postBalances'
> & { fee: string; computeUnitsConsumed: string; preBalances: string[]; postBalances: string[] };

/** How many blocks back a status is found without `searchTransactionHistory` (Solana's status cache). */
export const RECENT_STATUS_BLOCKS = 300;

/**
 * Every landed transaction, by signature and by account. Solana answers "already processed" from the same
 * kind of record, and this one is never trimmed: a local chain's whole history is small, and
 * `getSignaturesForAddress` must find a payment however old it is.
 */
export class TransactionHistory {
  private readonly bySignature = new Map<string, ProcessedTransaction>();
  /** Oldest first (appending is O(1)); read backwards for Solana's newest-first order. */
  private readonly byAddress = new Map<string, ProcessedTransaction[]>();
  private nextSequence = 0;

  static restore(records: readonly ProcessedTransactionJson[]): TransactionHistory {
    const history = new TransactionHistory();
    for (const record of [...records].sort((a, b) => a.sequence - b.sequence)) history.add(fromJson(record));
    return history;
  }

  get size(): number {
    return this.bySignature.size;
  }

  sequenceForNext(): number {
    return this.nextSequence;
  }

  add(record: ProcessedTransaction): void {
    if (this.bySignature.has(record.signature))
      throw new Error(`transaction ${record.signature} is already in the history`);
    this.bySignature.set(record.signature, record);
    this.nextSequence = Math.max(this.nextSequence, record.sequence + 1);
    for (const address of new Set(record.accountKeys)) {
      const list = this.byAddress.get(address);
      if (list) list.push(record);
      else this.byAddress.set(address, [record]);
    }
  }

  get(signature: string): ProcessedTransaction | undefined {
    return this.bySignature.get(signature);
  }

  /**
   * Newest first, at most `limit`; `before` starts strictly older than that signature, `until` stops
   * before reaching it (Solana's cursors; an unknown cursor signature yields nothing / does not stop).
   */
  forAddress(
    address: string,
    options: { limit: number; before?: string; until?: string },
  ): ProcessedTransaction[] {
    const list = this.byAddress.get(address) ?? [];
    let beforeSequence = Number.POSITIVE_INFINITY;
    if (options.before !== undefined) {
      const cursor = this.bySignature.get(options.before);
      if (!cursor) return [];
      beforeSequence = cursor.sequence;
    }
    const untilSequence =
      options.until === undefined ? -1 : (this.bySignature.get(options.until)?.sequence ?? -1);
    const found: ProcessedTransaction[] = [];
    for (let i = list.length - 1; i >= 0 && found.length < options.limit; i -= 1) {
      const record = list[i];
      if (record === undefined || record.sequence >= beforeSequence) continue;
      if (record.sequence <= untilSequence) break;
      found.push(record);
    }
    return found;
  }

  toJson(): ProcessedTransactionJson[] {
    return [...this.bySignature.values()].map(toJson);
  }
}

function toJson(record: ProcessedTransaction): ProcessedTransactionJson {
  return {
    ...record,
    fee: record.fee.toString(),
    computeUnitsConsumed: record.computeUnitsConsumed.toString(),
    preBalances: record.preBalances.map(String),
    postBalances: record.postBalances.map(String),
  };
}

function fromJson(record: ProcessedTransactionJson): ProcessedTransaction {
  return {
    ...record,
    fee: BigInt(record.fee),
    computeUnitsConsumed: BigInt(record.computeUnitsConsumed),
    preBalances: record.preBalances.map((value) => BigInt(value)),
    postBalances: record.postBalances.map((value) => BigInt(value)),
  };
}
