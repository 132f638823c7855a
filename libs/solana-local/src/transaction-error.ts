import type { FailedTransactionMetadata } from 'litesvm';
// The error classes are only exported by litesvm's generated binding module, not by its root; the root's
// wrapper requires this same module, so `instanceof` sees the classes the native code instantiates.
import {
  InstructionErrorBorshIo,
  InstructionErrorCustom,
  TransactionErrorDuplicateInstruction,
  TransactionErrorInstructionError,
  TransactionErrorInsufficientFundsForRent,
  TransactionErrorProgramExecutionTemporarilyRestricted,
} from 'litesvm/dist/internal.js';

/**
 * Solana's `TransactionError` exactly as its JSON-RPC writes it (`meta.err`, `getSignatureStatuses`,
 * `simulateTransaction`): a bare variant name, or a one-key object for the variants that carry data.
 */
export type TransactionErrorJson =
  | string
  | { InstructionError: [number, InstructionErrorJson] }
  | { DuplicateInstruction: number }
  | { InsufficientFundsForRent: { account_index: number } }
  | { ProgramExecutionTemporarilyRestricted: { account_index: number } };

export type InstructionErrorJson = string | { Custom: number } | { BorshIoError: string };

// litesvm's binding declares these as `const enum`s, which do not exist at run time (and isolatedModules
// forbids reading ambient const enums), so the variant names are listed here in the binding's order
// (litesvm/dist/internal.d.ts, TransactionErrorFieldless and InstructionErrorFieldless). They are
// Solana's own variant names, which is what its JSON-RPC prints.
const TRANSACTION_ERRORS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
] as const;

const INSTRUCTION_ERRORS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
] as const;

/** The transaction errors this library raises itself, in front of LiteSVM. */
export const BLOCKHASH_NOT_FOUND = 'BlockhashNotFound';
export const ALREADY_PROCESSED = 'AlreadyProcessed';
export const SIGNATURE_FAILURE = 'SignatureFailure';

function variantName(names: readonly string[], index: number, kind: string): string {
  // A binding newer than this table: keep the number rather than guess a name.
  return names[index] ?? `${kind}(${index})`;
}

function instructionErrorJson(
  error: ReturnType<TransactionErrorInstructionError['err']>,
): InstructionErrorJson {
  if (typeof error === 'number') return variantName(INSTRUCTION_ERRORS, error, 'UnknownInstructionError');
  if (error instanceof InstructionErrorCustom) return { Custom: error.code };
  if (error instanceof InstructionErrorBorshIo) return { BorshIoError: error.msg };
  return String(error);
}

/** Solana's JSON form of the error LiteSVM reports for a failed or refused transaction. */
export function transactionErrorJson(failure: FailedTransactionMetadata): TransactionErrorJson {
  const error = failure.err();
  if (typeof error === 'number') return variantName(TRANSACTION_ERRORS, error, 'UnknownTransactionError');
  if (error instanceof TransactionErrorInstructionError)
    return { InstructionError: [error.index, instructionErrorJson(error.err())] };
  if (error instanceof TransactionErrorDuplicateInstruction) return { DuplicateInstruction: error.index };
  if (error instanceof TransactionErrorInsufficientFundsForRent)
    return { InsufficientFundsForRent: { account_index: error.accountIndex } };
  if (error instanceof TransactionErrorProgramExecutionTemporarilyRestricted)
    return { ProgramExecutionTemporarilyRestricted: { account_index: error.accountIndex } };
  return String(error);
}

/** One line for people and logs, in the words Solana's RPC uses for the common cases. */
export function describeTransactionError(error: TransactionErrorJson): string {
  if (error === BLOCKHASH_NOT_FOUND) return 'Blockhash not found';
  if (error === ALREADY_PROCESSED) return 'This transaction has already been processed';
  if (error === SIGNATURE_FAILURE) return 'Transaction did not pass signature verification';
  if (error === 'InsufficientFundsForFee') return 'Insufficient funds for fee';
  if (typeof error === 'object' && 'InstructionError' in error) {
    const [index, cause] = error.InstructionError;
    const detail =
      typeof cause === 'string'
        ? cause
        : 'Custom' in cause
          ? `custom program error: 0x${cause.Custom.toString(16)}`
          : `BorshIoError: ${cause.BorshIoError}`;
    return `Error processing Instruction ${index}: ${detail}`;
  }
  return typeof error === 'string' ? error : JSON.stringify(error);
}
