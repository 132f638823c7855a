import {
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  partiallySignTransaction,
  type Address,
  type KeyPairSigner,
  type Transaction,
} from '@solana/kit';
import { TransactionOnchainFailureError, type FacilitatorSvmSigner } from '@x402/svm';
import type { Bank } from './bank.js';
import { LocalChainError } from './errors.js';
import { describeTransactionError } from './transaction-error.js';

/** A base64 wire transaction as the x402 facilitator hands it over; anything else is the caller's error. */
export function decodeWireTransaction(base64: string): Transaction {
  try {
    return getTransactionDecoder().decode(getBase64Encoder().encode(base64));
  } catch (error) {
    throw new LocalChainError('invalid_argument', `not a base64 wire transaction: ${String(error)}`, {
      cause: error,
    });
  }
}

/**
 * The `FacilitatorSvmSigner` of @x402/svm over the local chain, so its `ExactSvmScheme` verifies and settles
 * here exactly as it would through an RPC node: simulate (signatures unchecked by default, the fee payer's
 * slot is empty until settle), sign as fee payer, send, confirm.
 *
 * Unlike an RPC node, `sendTransaction` knows at once whether the transaction landed: one refused before
 * running (expired blockhash, bad signature, already processed) throws there, so the scheme reports a plain
 * failure instead of a pending settlement; one that ran and failed is recorded, and `confirmTransaction`
 * throws `TransactionOnchainFailureError` for it, the scheme's signal for "terminal, release the payment".
 */
export function createFacilitatorSigner(
  bank: Bank,
  feePayer: KeyPairSigner,
  network: string,
): FacilitatorSvmSigner {
  const checkNetwork = (asked: string): void => {
    if (asked !== network)
      throw new LocalChainError('network_mismatch', `this local chain answers as ${network}, not ${asked}`);
  };
  return {
    getAddresses: (): readonly Address[] => [feePayer.address],

    async signTransaction(transaction, payer, asked) {
      checkNetwork(asked);
      if (payer !== feePayer.address)
        throw new LocalChainError(
          'invalid_argument',
          `no signer for fee payer ${payer}; this chain signs as ${feePayer.address}`,
        );
      const signed = await partiallySignTransaction([feePayer.keyPair], decodeWireTransaction(transaction));
      return getBase64EncodedWireTransaction(signed);
    },

    async simulateTransaction(transaction, asked, options) {
      checkNetwork(asked);
      const outcome = bank.simulate(decodeWireTransaction(transaction), {
        sigVerify: options?.sigVerify ?? false,
        replaceRecentBlockhash: options?.replaceRecentBlockhash ?? false,
      });
      if (outcome.err !== null)
        throw new LocalChainError('simulation_failed', `Simulation failed: ${JSON.stringify(outcome.err)}`);
    },

    async sendTransaction(transaction, asked) {
      checkNetwork(asked);
      const outcome = bank.process(decodeWireTransaction(transaction));
      if (!outcome.landed)
        throw new LocalChainError(
          'transaction_rejected',
          `transaction ${outcome.signature} refused: ${describeTransactionError(outcome.err)} (${outcome.detail})`,
        );
      return outcome.record.signature;
    },

    async confirmTransaction(signature, asked) {
      checkNetwork(asked);
      const record = bank.history.get(signature);
      if (!record) throw new LocalChainError('transaction_unknown', `the chain never processed ${signature}`);
      if (record.err !== null)
        throw new TransactionOnchainFailureError(`Transaction failed onchain: ${JSON.stringify(record.err)}`);
    },
  };
}
