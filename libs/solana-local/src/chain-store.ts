import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { BlockhashQueueState } from './blockhash-queue.js';
import { LocalChainError } from './errors.js';
import type { ProcessedTransactionJson } from './transaction-history.js';

/**
 * The files of a persisted chain, all beside `dataFile`:
 * - `dataFile`: LiteSVM's own snapshot (`toBytes`, the format `saveToFile` writes and `loadFromFile` reads);
 * - `<dataFile>.history.json`: the blockhash queue and every landed transaction (the address index is
 *   rebuilt from them), with the sha256 of the snapshot it belongs to;
 * - `<dataFile>.keys.json` (0600): the fee payer and mint authority seeds, test keys of this chain.
 */
export interface ChainFiles {
  snapshot: string;
  history: string;
  keys: string;
}

export function chainFiles(dataFile: string): ChainFiles {
  return { snapshot: dataFile, history: `${dataFile}.history.json`, keys: `${dataFile}.keys.json` };
}

export interface ChainKeySeeds {
  feePayer: Uint8Array;
  mintAuthority: Uint8Array;
}

const KEYS_FORMAT = 'townhall-solana-local-keys/1';
const HISTORY_FORMAT = 'townhall-solana-local-history/1';

const seed = z
  .string()
  .regex(/^[A-Za-z0-9+/]{43}=$/, 'a 32-byte seed in base64')
  .transform((text) => new Uint8Array(Buffer.from(text, 'base64')));

const keysFile = z.object({
  format: z.literal(KEYS_FORMAT),
  note: z.string(),
  feePayer: seed,
  mintAuthority: seed,
});

const decimal = z.string().regex(/^\d+$/);
const transactionError: z.ZodType<ProcessedTransactionJson['err']> = z.union([
  z.string(),
  z.record(z.string(), z.unknown()),
]) as z.ZodType<ProcessedTransactionJson['err']>;

const historyFile = z.object({
  format: z.literal(HISTORY_FORMAT),
  snapshotSha256: z.string().regex(/^[0-9a-f]{64}$/),
  blockhashQueue: z.object({
    height: z.number().int().nonnegative(),
    advancedAt: z.number(),
    entries: z
      .array(z.object({ blockhash: z.string(), height: z.number().int(), issuedAt: z.number() }))
      .min(1),
  }),
  transactions: z.array(
    z.object({
      signature: z.string(),
      sequence: z.number().int().nonnegative(),
      slot: z.number().int().nonnegative(),
      blockTime: z.number().int(),
      transaction: z.string(),
      version: z.union([z.literal('legacy'), z.literal(0), z.literal(1)]),
      err: transactionError.nullable(),
      fee: decimal,
      logs: z.array(z.string()),
      computeUnitsConsumed: decimal,
      accountKeys: z.array(z.string()),
      preBalances: z.array(decimal),
      postBalances: z.array(decimal),
      memo: z.string().nullable(),
      innerInstructions: z.array(
        z.object({
          index: z.number().int(),
          instructions: z.array(
            z.object({
              programIdIndex: z.number().int(),
              accounts: z.array(z.number().int()),
              data: z.string(),
              stackHeight: z.number().int(),
            }),
          ),
        }),
      ),
    }),
  ),
});

export interface ChainState {
  snapshot: Uint8Array;
  blockhashQueue: BlockhashQueueState;
  transactions: ProcessedTransactionJson[];
}

async function readIfExists(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new LocalChainError('persistence_failed', `cannot read ${path}: ${String(error)}`, {
      cause: error,
    });
  }
}

function parseJson<T>(path: string, bytes: Buffer, schema: z.ZodType<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new LocalChainError('persistence_failed', `${path} is not JSON: ${String(error)}`, {
      cause: error,
    });
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new LocalChainError(
      'persistence_failed',
      `${path} is not a file of this chain: ${parsed.error.message}`,
    );
  return parsed.data;
}

export async function readKeys(files: ChainFiles): Promise<ChainKeySeeds | undefined> {
  const bytes = await readIfExists(files.keys);
  if (bytes === undefined) return undefined;
  const keys = parseJson(files.keys, bytes, keysFile);
  return { feePayer: keys.feePayer, mintAuthority: keys.mintAuthority };
}

export async function writeKeys(files: ChainFiles, keys: ChainKeySeeds): Promise<void> {
  const body = {
    format: KEYS_FORMAT,
    note: 'Test keys of a local Solana chain (@townhall/solana-local): they sign only on this machine. Never fund them on a real network.',
    feePayer: Buffer.from(keys.feePayer).toString('base64'),
    mintAuthority: Buffer.from(keys.mintAuthority).toString('base64'),
  };
  await writeAtomically(files.keys, Buffer.from(`${JSON.stringify(body, null, 2)}\n`), 0o600);
}

/** The saved state, or undefined for a chain never saved; a half-present or mismatched pair is refused. */
export async function readState(files: ChainFiles): Promise<ChainState | undefined> {
  const [snapshot, history] = await Promise.all([readIfExists(files.snapshot), readIfExists(files.history)]);
  if (snapshot === undefined && history === undefined) return undefined;
  if (snapshot === undefined || history === undefined)
    throw new LocalChainError(
      'state_conflict',
      `${snapshot === undefined ? files.snapshot : files.history} is missing while ${snapshot === undefined ? files.history : files.snapshot} exists; move both away to start a new chain`,
    );
  const parsed = parseJson(files.history, history, historyFile);
  // The two files are renamed one after the other; a crash between the renames leaves a pair that does
  // not match, and guessing which transactions are missing would be repairing state silently.
  if (sha256(snapshot) !== parsed.snapshotSha256)
    throw new LocalChainError(
      'state_conflict',
      `${files.history} does not belong to ${files.snapshot} (interrupted save?); move both away to start a new chain`,
    );
  return {
    snapshot: new Uint8Array(snapshot),
    blockhashQueue: parsed.blockhashQueue,
    transactions: parsed.transactions,
  };
}

export async function writeState(files: ChainFiles, state: ChainState): Promise<void> {
  const history = {
    format: HISTORY_FORMAT,
    snapshotSha256: sha256(state.snapshot),
    blockhashQueue: state.blockhashQueue,
    transactions: state.transactions,
  };
  await writeAtomically(files.snapshot, state.snapshot, 0o600);
  await writeAtomically(files.history, Buffer.from(JSON.stringify(history)), 0o600);
}

export async function ensureFolder(path: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new LocalChainError('persistence_failed', `cannot create the folder of ${path}: ${String(error)}`, {
      cause: error,
    });
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Write, flush, then rename over the old file: a reader sees the old file or the new one, never half. */
async function writeAtomically(path: string, bytes: Uint8Array, mode: number): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(temporary, 'wx', mode);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw new LocalChainError('persistence_failed', `cannot write ${path}: ${String(error)}`, {
      cause: error,
    });
  }
}
