// Transactions the chain signs with its own keys (the faucet's mints, token accounts), processed at once.
import { randomBytes } from 'node:crypto';
import {
  address,
  appendTransactionMessageInstructions,
  blockhash as toBlockhash,
  createTransactionMessage,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import type { Bank, ProcessOutcome } from './bank.js';
import { LocalChainError } from './errors.js';
import { BLOCKHASH_NOT_FOUND, describeTransactionError } from './transaction-error.js';
import type { ProcessedTransaction } from './transaction-history.js';

/** What signing and processing the chain's own transactions needs of the chain. */
export interface OwnSigner {
  bank: Bank;
  feePayer: KeyPairSigner;
  /** Checked again after signing (which awaits), so a chain closed meanwhile processes nothing. */
  assertOpen: () => void;
}

/**
 * How many times the chain signs one of its own transactions again when the blockhash it named
 * expired while it was signing (signing awaits; on a loaded machine, a short test lifetime of a few
 * hundred milliseconds can pass). A refusal changed nothing, so signing anew is safe.
 */
const SIGNING_ATTEMPTS = 5;

/** Signs with the chain's own keys and processes; throws unless it landed and succeeded. */
export async function sendOwnTransaction(
  { bank, feePayer, assertOpen }: OwnSigner,
  purpose: string,
  instructions: Instruction[],
): Promise<ProcessedTransaction> {
  let outcome: ProcessOutcome;
  let attempt = 0;
  do {
    attempt += 1;
    const signed = await signOwn(bank, feePayer, purpose, instructions);
    assertOpen();
    outcome = bank.process(signed);
  } while (!outcome.landed && outcome.err === BLOCKHASH_NOT_FOUND && attempt < SIGNING_ATTEMPTS);
  if (!outcome.landed)
    throw new LocalChainError(
      'transaction_rejected',
      `${purpose} transaction refused: ${describeTransactionError(outcome.err)} (${outcome.detail})`,
    );
  if (outcome.record.err !== null)
    throw new LocalChainError(
      'transaction_failed',
      `${purpose} transaction ${outcome.record.signature} failed: ${describeTransactionError(outcome.record.err)}`,
    );
  return outcome.record;
}

/** The transaction signed by the chain's fee payer, naming the latest blockhash. */
function signOwn(bank: Bank, feePayer: KeyPairSigner, purpose: string, instructions: Instruction[]) {
  const latest = bank.latestBlockhash();
  // A nonce memo: two equal faucet calls in one blockhash window would otherwise be one transaction,
  // and the second would be refused as already processed.
  const nonce: Instruction = {
    programAddress: address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
    data: new TextEncoder().encode(`townhall-local ${purpose} ${randomBytes(8).toString('hex')}`),
  };
  return signTransactionMessageWithSigners(
    pipe(
      createTransactionMessage({ version: 0 }),
      (message) => setTransactionMessageFeePayerSigner(feePayer, message),
      (message) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: toBlockhash(latest.blockhash), lastValidBlockHeight: latest.lastValidBlockHeight },
          message,
        ),
      (message) => appendTransactionMessageInstructions([...instructions, nonce], message),
    ),
  );
}
