export type LocalChainFailure =
  /** The chain was closed; nothing can be read or sent any more. */
  | 'closed'
  /** An argument is not what the call takes (an address that is not base58 of 32 bytes, a zero amount, ...). */
  | 'invalid_argument'
  /** The options or the files of a persisted chain contradict each other (keys missing, another mint there, ...). */
  | 'state_conflict'
  /** A persisted file could not be read or written. */
  | 'persistence_failed'
  /** The chain refused a transaction before running it (expired blockhash, bad signature, already processed). */
  | 'transaction_rejected'
  /** A simulation says the transaction would fail (or be refused); nothing changed. */
  | 'simulation_failed'
  /** A transaction ran and failed on chain (it landed and paid its fee). */
  | 'transaction_failed'
  /** A signature the chain never processed. */
  | 'transaction_unknown'
  /** The caller asked for another network than the one this chain answers as. */
  | 'network_mismatch';

/**
 * Every failure of the local chain says which kind it is, so a caller (the ticketing service, a test, the
 * RPC server) can tell "you asked wrong" from "the chain said no" without parsing the message.
 */
export class LocalChainError extends Error {
  constructor(
    readonly code: LocalChainFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'LocalChainError';
  }
}
