import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm';
import {
  getBase58Decoder,
  getBase64Decoder,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  getSignatureFromTransaction,
  getTransactionEncoder,
  lamports,
  type Address,
  type Blockhash,
  type EncodedAccount,
  type Transaction,
  type TransactionMessageBytes,
} from '@solana/kit';
import { BlockhashQueue, type BlockhashQueueState, type RecentBlockhash } from './blockhash-queue.js';
import {
  ALREADY_PROCESSED,
  BLOCKHASH_NOT_FOUND,
  SIGNATURE_FAILURE,
  transactionErrorJson,
  type TransactionErrorJson,
} from './transaction-error.js';
import {
  TransactionHistory,
  type InnerInstructionRecord,
  type ProcessedTransaction,
  type ProcessedTransactionJson,
} from './transaction-history.js';

/** What happened to a transaction handed to the bank. */
export type ProcessOutcome =
  /** It ran and paid its fee; `record.err` says whether it failed on chain. */
  | { landed: true; record: ProcessedTransaction }
  /** Refused before running (expired blockhash, bad signature, already processed, no fee): nothing changed. */
  | { landed: false; signature: string; err: TransactionErrorJson; detail: string };

export interface SimulationOutcome {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: bigint;
  returnData: { programId: string; data: string } | null;
  innerInstructions: ProcessedTransaction['innerInstructions'];
  /** The accounts as the transaction would leave them (only those it touches). */
  postAccounts: EncodedAccount[];
  replacementBlockhash: RecentBlockhash | null;
}

const MEMO_PROGRAMS = new Set([
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
]);
const base58 = getBase58Decoder();
const base64 = getBase64Decoder();
const messageDecoder = getCompiledTransactionMessageDecoder();
type CompiledMessage = ReturnType<typeof messageDecoder.decode>;

/**
 * The state machine of the local chain, named after Solana's: LiteSVM runs the transactions, the blockhash
 * queue decides which may land, the history remembers every one that did. Everything here is synchronous,
 * so one transaction is processed completely before the next one starts.
 */
export class Bank {
  /** Called after every change of state (a landed transaction, an account written), to schedule a save. */
  onChange: () => void = () => {};

  private constructor(
    private readonly svm: LiteSVM,
    private readonly queue: BlockhashQueue,
    readonly history: TransactionHistory,
    private readonly now: () => number,
  ) {
    // Signatures are always checked, except inside a `sigVerify: false` simulation. LiteSVM's blockhash
    // check only accepts its single latest blockhash; the queue checks instead (see BlockhashQueue).
    svm.withSigverify(true).withBlockhashCheck(false);
  }

  static create(lifetimeMs: number, now: () => number): Bank {
    const svm = new LiteSVM();
    return new Bank(
      svm,
      BlockhashQueue.start(lifetimeMs, svm.latestBlockhash(), now()),
      new TransactionHistory(),
      now,
    );
  }

  static restore(
    snapshot: Uint8Array,
    queue: BlockhashQueueState,
    transactions: readonly ProcessedTransactionJson[],
    lifetimeMs: number,
    now: () => number,
  ): Bank {
    return new Bank(
      LiteSVM.fromBytes(snapshot),
      BlockhashQueue.restore(lifetimeMs, queue),
      TransactionHistory.restore(transactions),
      now,
    );
  }

  /** Advances blocks for the wall time elapsed; called by everything that reads or writes the chain. */
  tick(): void {
    const now = this.now();
    const blocks = this.queue.blocksDue(now);
    if (blocks === 0) return;
    this.svm.expireBlockhash();
    this.queue.advance(blocks, this.svm.latestBlockhash(), now);
  }

  latestBlockhash(): RecentBlockhash {
    this.tick();
    return this.queue.latest();
  }

  /** Block height and slot are one number here: a local chain skips no slot. */
  blockHeight(): bigint {
    this.tick();
    return BigInt(this.queue.blockHeight);
  }

  isBlockhashValid(blockhash: string): boolean {
    this.tick();
    return this.queue.isValid(blockhash, this.now());
  }

  account(address: Address): EncodedAccount | undefined {
    const account = this.svm.getAccount(address);
    return account.exists ? account : undefined;
  }

  lamports(address: Address): bigint {
    return this.svm.getBalance(address) ?? 0n;
  }

  minimumBalanceForRentExemption(size: bigint): bigint {
    return this.svm.minimumBalanceForRentExemption(size);
  }

  /** Writes an account directly (the mint at its fixed address); not a transaction, so not in the history. */
  setAccount(account: EncodedAccount): void {
    this.svm.setAccount(account);
    this.onChange();
  }

  airdrop(address: Address, amount: bigint): void {
    const result = this.svm.airdrop(address, lamports(amount));
    if (result === null || result instanceof FailedTransactionMetadata)
      throw new Error(
        `airdrop to ${address} failed: ${result === null ? 'no result' : JSON.stringify(transactionErrorJson(result))}`,
      );
    this.onChange();
  }

  process(transaction: Transaction): ProcessOutcome {
    this.tick();
    const missing = Object.entries(transaction.signatures).find(([, signature]) => signature === null);
    if (missing) {
      return this.refused(
        transaction,
        SIGNATURE_FAILURE,
        `the transaction is missing the signature of ${missing[0]}`,
      );
    }
    const signature = getSignatureFromTransaction(transaction);
    if (this.history.get(signature)) {
      return this.refused(transaction, ALREADY_PROCESSED, 'this transaction has already been processed');
    }
    let message: CompiledMessage;
    try {
      message = messageDecoder.decode(transaction.messageBytes);
    } catch (error) {
      return this.refused(transaction, 'SanitizeFailure', `the message cannot be decoded: ${String(error)}`);
    }
    if (!this.queue.isValid(message.lifetimeToken, this.now())) {
      return this.refused(
        transaction,
        BLOCKHASH_NOT_FOUND,
        `blockhash ${message.lifetimeToken} is unknown or expired`,
      );
    }

    const accountKeys: Address[] = [...message.staticAccounts];
    const preBalances = accountKeys.map((key) => this.lamports(key));
    let result: TransactionMetadata | FailedTransactionMetadata;
    try {
      result = this.svm.sendTransaction(transaction);
    } catch (error) {
      // The wrapper throws for what the runtime cannot even load (an unsupported version, ...).
      return this.refused(transaction, 'SanitizeFailure', String(error));
    }
    const err = result instanceof FailedTransactionMetadata ? transactionErrorJson(result) : null;
    // LiteSVM reports refusals (fee not payable, bad signature) and on-chain failures alike; only the
    // ones that landed are in its own history, with their fee paid.
    if (err !== null && this.svm.getTransaction(signature) === null) {
      return this.refused(transaction, err, 'the runtime refused the transaction before running it');
    }
    const meta = result instanceof FailedTransactionMetadata ? result.meta() : result;
    const postBalances = accountKeys.map((key) => this.lamports(key));
    const record: ProcessedTransaction = {
      signature,
      sequence: this.history.sequenceForNext(),
      slot: this.queue.blockHeight,
      blockTime: Math.floor(this.now() / 1000),
      transaction: base64.decode(getTransactionEncoder().encode(transaction)),
      version: message.version,
      err,
      // Lamports only move between the transaction's own accounts; what left them all is the fee.
      fee: sum(preBalances) - sum(postBalances),
      logs: meta.logs(),
      computeUnitsConsumed: meta.computeUnitsConsumed(),
      accountKeys,
      preBalances,
      postBalances,
      memo: memoOf(message),
      innerInstructions: innerInstructionsOf(meta),
    };
    this.history.add(record);
    this.onChange();
    return { landed: true, record };
  }

  simulate(
    transaction: Transaction,
    options: { sigVerify: boolean; replaceRecentBlockhash: boolean },
  ): SimulationOutcome {
    this.tick();
    const empty = { logs: [], unitsConsumed: 0n, returnData: null, innerInstructions: [], postAccounts: [] };
    let message: CompiledMessage;
    try {
      message = messageDecoder.decode(transaction.messageBytes);
    } catch {
      return { ...empty, err: 'SanitizeFailure', replacementBlockhash: null };
    }
    let replacementBlockhash: RecentBlockhash | null = null;
    let simulated = transaction;
    if (options.replaceRecentBlockhash) {
      replacementBlockhash = this.queue.latest();
      const messageBytes = getCompiledTransactionMessageEncoder().encode({
        ...message,
        lifetimeToken: replacementBlockhash.blockhash as Blockhash,
      }) as TransactionMessageBytes;
      simulated = { ...transaction, messageBytes };
    } else if (!this.queue.isValid(message.lifetimeToken, this.now())) {
      return { ...empty, err: BLOCKHASH_NOT_FOUND, replacementBlockhash };
    }
    if (options.sigVerify && Object.values(simulated.signatures).some((signature) => signature === null)) {
      return { ...empty, err: SIGNATURE_FAILURE, replacementBlockhash };
    }

    this.svm.withSigverify(options.sigVerify);
    try {
      const result = this.svm.simulateTransaction(simulated);
      const meta = result.meta();
      const returned = meta.returnData();
      const returnData =
        returned.data().length === 0
          ? null
          : { programId: base58.decode(returned.programId()), data: base64.decode(returned.data()) };
      return {
        err: result instanceof FailedTransactionMetadata ? transactionErrorJson(result) : null,
        logs: meta.logs(),
        unitsConsumed: meta.computeUnitsConsumed(),
        returnData,
        innerInstructions: innerInstructionsOf(meta),
        postAccounts: result instanceof FailedTransactionMetadata ? [] : result.postAccounts(),
        replacementBlockhash,
      };
    } finally {
      this.svm.withSigverify(true);
    }
  }

  /** The whole state, taken at one instant (synchronously), for a save. */
  snapshot(): { svm: Uint8Array; queue: BlockhashQueueState; transactions: ProcessedTransactionJson[] } {
    return { svm: this.svm.toBytes(), queue: this.queue.state(), transactions: this.history.toJson() };
  }

  private refused(transaction: Transaction, err: TransactionErrorJson, detail: string): ProcessOutcome {
    const first = Object.values(transaction.signatures)[0];
    const signature = first ? base58.decode(first) : base58.decode(new Uint8Array(64));
    return { landed: false, signature, err, detail };
  }
}

function sum(values: readonly bigint[]): bigint {
  return values.reduce((total, value) => total + value, 0n);
}

function memoOf(message: CompiledMessage): string | null {
  // Versions 0 and legacy list compiled instructions; a version 1 message keeps them in another layout,
  // for which no memo is reported (nothing in this project sends one).
  if (!('instructions' in message)) return null;
  const memos: string[] = [];
  for (const instruction of message.instructions) {
    const program = message.staticAccounts[instruction.programAddressIndex];
    if (program === undefined || !MEMO_PROGRAMS.has(program)) continue;
    const data = instruction.data ?? new Uint8Array();
    memos.push(`[${data.length}] ${new TextDecoder().decode(data)}`);
  }
  return memos.length > 0 ? memos.join('; ') : null;
}

function innerInstructionsOf(meta: TransactionMetadata): ProcessedTransaction['innerInstructions'] {
  return meta
    .innerInstructions()
    .map((group, index) => ({
      index,
      instructions: group.map((inner): InnerInstructionRecord => ({
        programIdIndex: inner.instruction().programIdIndex(),
        accounts: [...inner.instruction().accounts()],
        data: base58.decode(inner.instruction().data()),
        stackHeight: inner.stackHeight(),
      })),
    }))
    .filter((group) => group.instructions.length > 0);
}
