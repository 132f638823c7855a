// The local chain: opening it (keys, state, fee payer, mint), its faucet and reads, and its lifecycle.
import { createHash, randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import {
  address,
  createKeyPairSignerFromPrivateKeyBytes,
  getBase58Decoder,
  isAddress,
  lamports,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import {
  getCreateAssociatedTokenIdempotentInstruction,
  getMintToCheckedInstruction,
} from '@solana-program/token';
import type { FacilitatorSvmSigner } from '@x402/svm';
import { Bank } from './bank.js';
import {
  chainFiles,
  ensureFolder,
  readKeys,
  readState,
  writeKeys,
  type ChainFiles,
  type ChainKeySeeds,
} from './chain-store.js';
import { LocalChainError } from './errors.js';
import { createFacilitatorSigner } from './facilitator-signer.js';
import { sendOwnTransaction, type OwnSigner } from './own-transactions.js';
import { SaveScheduler } from './save-scheduler.js';
import {
  TOKEN_PROGRAM_ADDRESS,
  associatedTokenAddress,
  decodeMintAccount,
  decodeTokenAccount,
  mintAccountData,
  MINT_SIZE,
} from './token-accounts.js';
import type { ProcessedTransaction } from './transaction-history.js';

/** CAIP-2 id of Solana devnet, the network the local chain answers as by default. */
export const SOLANA_DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
/** The address of USDC on devnet; the local chain's test USDC lives at the same address by default. */
export const USDC_DEVNET_MINT = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';

export interface LocalChainOptions {
  /** Where the chain persists (LiteSVM saveToFile/loadFromFile). Absent: ephemeral. */
  dataFile?: string;
  /** CAIP-2 id the chain answers as (default SOLANA_DEVNET; the official client accepts only the three real Solana ids). */
  network?: string;
  /** The SPL mint address of the test USDC (default USDC_DEVNET_MINT), 6 decimals. */
  mint?: string;
  /** How long a blockhash can land a transaction (default 60 000 ms, about Solana's 150 blocks); at least 100. */
  blockhashLifetimeMs?: number;
  /**
   * Told about a failed background save (the debounced write after a change). Either way the next change,
   * `save()` or `close()` writes the whole state again, and `save()`/`close()` reject if that fails too:
   * a state that did not reach the disk is never reported as saved.
   */
  onPersistError?: (error: LocalChainError) => void;
}

const DECIMALS = 6;
const DEFAULT_BLOCKHASH_LIFETIME_MS = 60_000;
const LAMPORTS_PER_SOL = 1_000_000_000n;
/** The fee payer is topped up to this at open when it holds less than a tenth of it. */
const FEE_PAYER_FUNDING = 1_000n * LAMPORTS_PER_SOL;
const U64_MAX = 2n ** 64n - 1n;
const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;
/** The genesis hashes of the real clusters, so `getGenesisHash` agrees with the CAIP-2 id (its first 32 chars). */
const KNOWN_GENESIS_HASHES: Record<string, string> = {
  'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
  'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1': 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
  'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z': '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY',
};

// The bank stays out of LocalChain's public surface; the RPC server reaches it through `bankOf`, which
// index.ts does not export.
const banks = new WeakMap<LocalChain, Bank>();

/** The bank behind an open chain (for the RPC server of this package). */
export function bankOf(chain: LocalChain): Bank {
  const bank = banks.get(chain);
  if (!bank || chain.isClosed) throw new LocalChainError('closed', 'the local chain is closed');
  return bank;
}

/**
 * A real Solana runtime (LiteSVM) in this process, with a test USDC mint and a funded fee payer, for the
 * standalone mode, the demo and tests: @x402/svm's own client and facilitator pay and settle real SPL token
 * transfers on it, with no network anywhere.
 */
export class LocalChain {
  readonly decimals = DECIMALS as 6;
  /** The FacilitatorSvmSigner over this chain, for @x402/svm's ExactSvmScheme facilitator. */
  readonly signer: FacilitatorSvmSigner;
  /** Solana's genesis hash for the chain's network (the real one for the three known ids, else derived). */
  readonly genesisHash: string;
  private closed = false;
  private readonly saves: SaveScheduler;
  /** The chain's own keys and bank, for the faucet's transactions. */
  private readonly own: OwnSigner;

  private constructor(
    private readonly bank: Bank,
    readonly network: string,
    readonly mint: string,
    private readonly feePayerSigner: KeyPairSigner,
    private readonly mintAuthority: KeyPairSigner,
    files: ChainFiles | undefined,
    onPersistError: LocalChainOptions['onPersistError'],
  ) {
    this.signer = createFacilitatorSigner(bank, feePayerSigner, network);
    this.genesisHash =
      KNOWN_GENESIS_HASHES[network] ??
      getBase58Decoder().decode(createHash('sha256').update(`townhall-solana-local:${network}`).digest());
    banks.set(this, bank);
    this.saves = new SaveScheduler(bank, files, onPersistError);
    this.own = { bank, feePayer: feePayerSigner, assertOpen: () => this.assertOpen() };
    // A closed chain writes nothing more: close() has written its last state.
    bank.onChange = () => {
      if (!this.closed) this.saves.schedule();
    };
  }

  static async open(options: LocalChainOptions = {}): Promise<LocalChain> {
    const network = options.network ?? SOLANA_DEVNET;
    if (!CAIP2.test(network))
      throw new LocalChainError('invalid_argument', `network ${network} is not a CAIP-2 id`);
    const mint = options.mint ?? USDC_DEVNET_MINT;
    if (!isAddress(mint))
      throw new LocalChainError('invalid_argument', `mint ${mint} is not a Solana address`);
    const lifetimeMs = options.blockhashLifetimeMs ?? DEFAULT_BLOCKHASH_LIFETIME_MS;
    if (!Number.isSafeInteger(lifetimeMs) || lifetimeMs < 100)
      throw new LocalChainError(
        'invalid_argument',
        `blockhashLifetimeMs must be an integer >= 100, not ${lifetimeMs}`,
      );
    const now = (): number => Date.now();

    const files = options.dataFile === undefined ? undefined : chainFiles(resolve(options.dataFile));
    let seeds: ChainKeySeeds | undefined;
    let bank: Bank;
    if (files) {
      await ensureFolder(files.snapshot);
      const [keys, state] = await Promise.all([readKeys(files), readState(files)]);
      if (state && !keys)
        throw new LocalChainError(
          'state_conflict',
          `${files.keys} is missing: without the fee payer and mint authority keys ${files.snapshot} cannot be used; move it away to start a new chain`,
        );
      seeds = keys ?? { feePayer: randomBytes(32), mintAuthority: randomBytes(32) };
      if (!keys) await writeKeys(files, seeds);
      bank = state
        ? Bank.restore(state.snapshot, state.blockhashQueue, state.transactions, lifetimeMs, now)
        : Bank.create(lifetimeMs, now);
    } else {
      seeds = { feePayer: randomBytes(32), mintAuthority: randomBytes(32) };
      bank = Bank.create(lifetimeMs, now);
    }
    const [feePayer, mintAuthority] = await Promise.all([
      createKeyPairSignerFromPrivateKeyBytes(seeds.feePayer),
      createKeyPairSignerFromPrivateKeyBytes(seeds.mintAuthority),
    ]);

    if (bank.lamports(feePayer.address) < FEE_PAYER_FUNDING / 10n)
      bank.airdrop(feePayer.address, FEE_PAYER_FUNDING);
    const mintAddress = address(mint);
    const existing = bank.account(mintAddress);
    if (!existing) {
      bank.setAccount({
        address: mintAddress,
        data: mintAccountData(mintAuthority.address, DECIMALS),
        executable: false,
        lamports: lamports(bank.minimumBalanceForRentExemption(BigInt(MINT_SIZE))),
        programAddress: TOKEN_PROGRAM_ADDRESS,
        space: BigInt(MINT_SIZE),
      });
    } else {
      const decoded = decodeMintAccount(existing.programAddress, existing.data);
      const authority = decoded?.mintAuthority.__option === 'Some' ? decoded.mintAuthority.value : undefined;
      if (!decoded || decoded.decimals !== DECIMALS || authority !== mintAuthority.address)
        throw new LocalChainError(
          'state_conflict',
          `the account at ${mint} is not this chain's ${DECIMALS}-decimal mint with authority ${mintAuthority.address}`,
        );
    }

    const chain = new LocalChain(bank, network, mint, feePayer, mintAuthority, files, options.onPersistError);
    // A persisted chain is on disk from its first moment, keys and state together.
    if (files) await chain.save();
    return chain;
  }

  /** Base58 address of the funded fee payer the facilitator signs with. */
  get feePayer(): string {
    return this.feePayerSigner.address;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Mints `amount` atomic units to `owner`'s associated token account, creating it first if needed. */
  async faucet(owner: string, amount: bigint): Promise<{ transaction: string; tokenAccount: string }> {
    const ownerAddress = this.addressArgument(owner, 'owner');
    if (typeof amount !== 'bigint' || amount <= 0n || amount > U64_MAX)
      throw new LocalChainError(
        'invalid_argument',
        `amount must be a bigint in 1..2^64-1, not ${String(amount)}`,
      );
    const tokenAccount = associatedTokenAddress(ownerAddress, address(this.mint));
    const record = await sendOwnTransaction(this.own, 'faucet', [
      this.createTokenAccountInstruction(ownerAddress, tokenAccount),
      getMintToCheckedInstruction({
        mint: address(this.mint),
        token: tokenAccount,
        mintAuthority: this.mintAuthority,
        amount,
        decimals: DECIMALS,
      }),
    ]);
    return { transaction: record.signature, tokenAccount };
  }

  /** Creates `owner`'s associated token account for the mint if it does not exist (idempotent); returns its address. */
  async ensureTokenAccount(owner: string): Promise<string> {
    const ownerAddress = this.addressArgument(owner, 'owner');
    const tokenAccount = associatedTokenAddress(ownerAddress, address(this.mint));
    if (this.bank.account(tokenAccount)) return tokenAccount;
    await sendOwnTransaction(this.own, 'token account', [
      this.createTokenAccountInstruction(ownerAddress, tokenAccount),
    ]);
    return tokenAccount;
  }

  /** Atomic units in `owner`'s ATA (0n if none). */
  tokenBalance(owner: string): bigint {
    const tokenAccount = associatedTokenAddress(this.addressArgument(owner, 'owner'), address(this.mint));
    const account = this.bank.account(tokenAccount);
    return account ? (decodeTokenAccount(account.programAddress, account.data)?.amount ?? 0n) : 0n;
  }

  /** Lamports of `address` (0n if none). */
  solBalance(owner: string): bigint {
    return this.bank.lamports(this.addressArgument(owner, 'address'));
  }

  /** A landed transaction's outcome, or undefined if the chain never processed it. */
  transactionStatus(signature: string): { ok: true } | { ok: false; error: string } | undefined {
    const record = this.record(signature);
    if (!record) return undefined;
    return record.err === null ? { ok: true } : { ok: false, error: JSON.stringify(record.err) };
  }

  /** Signatures of processed transactions that touched `address` (any account key), newest first, at most `limit`. */
  signaturesFor(owner: string, limit = 1000): string[] {
    const account = this.addressArgument(owner, 'address');
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw new LocalChainError('invalid_argument', `limit must be a positive integer, not ${limit}`);
    return this.bank.history.forAddress(account, { limit }).map((record) => record.signature);
  }

  /** The wire transaction (base64) of a processed transaction, or undefined. */
  transaction(
    signature: string,
  ): { transaction: string; slot: bigint; ok: boolean; error?: string } | undefined {
    const record = this.record(signature);
    if (!record) return undefined;
    return record.err === null
      ? { transaction: record.transaction, slot: BigInt(record.slot), ok: true }
      : {
          transaction: record.transaction,
          slot: BigInt(record.slot),
          ok: false,
          error: JSON.stringify(record.err),
        };
  }

  /** Whether a blockhash can still land a transaction. */
  isBlockhashValid(blockhash: string): boolean {
    this.assertOpen();
    return this.bank.isBlockhashValid(blockhash);
  }

  /** Writes the state now (also done after every state change, debounced, when dataFile is set). */
  async save(): Promise<void> {
    this.assertOpen();
    await this.saves.flush();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.saves.flush();
    } finally {
      this.closed = true;
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new LocalChainError('closed', 'the local chain is closed');
  }

  private addressArgument(value: string, name: string): Address {
    this.assertOpen();
    if (typeof value !== 'string' || !isAddress(value))
      throw new LocalChainError('invalid_argument', `${name} ${String(value)} is not a Solana address`);
    return value;
  }

  private record(signature: string): ProcessedTransaction | undefined {
    this.assertOpen();
    if (typeof signature !== 'string')
      throw new LocalChainError('invalid_argument', `signature ${String(signature)} is not a string`);
    return this.bank.history.get(signature);
  }

  private createTokenAccountInstruction(owner: Address, tokenAccount: Address): Instruction {
    return getCreateAssociatedTokenIdempotentInstruction({
      payer: this.feePayerSigner,
      ata: tokenAccount,
      owner,
      mint: address(this.mint),
    });
  }
}
