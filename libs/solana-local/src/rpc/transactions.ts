// Transaction methods: send, simulate, and read back landed ones (getTransaction, statuses, signatures).
import {
  getBase58Decoder,
  getBase58Encoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Transaction,
} from '@solana/kit';
import type { Bank, SimulationOutcome } from '../bank.js';
import { bankOf } from '../local-chain.js';
import { SIGNATURE_FAILURE, describeTransactionError } from '../transaction-error.js';
import { RECENT_STATUS_BLOCKS, type ProcessedTransaction } from '../transaction-history.js';
import { accountJson, accountOptions } from './accounts.js';
import {
  RpcError,
  SEND_TRANSACTION_PREFLIGHT_FAILURE,
  TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
  UNSUPPORTED_TRANSACTION_VERSION,
  address,
  array,
  atMost,
  config,
  invalidParams,
  optionalBoolean,
  optionalChoice,
  optionalInteger,
  signature,
  string,
  type Config,
  type Params,
} from './params.js';
import { withContext, type RpcMethodEntry } from './rpc-method.js';

/** Solana's packet limit: no transaction is larger on the wire. */
const MAX_TRANSACTION_BYTES = 1232;

const base58 = getBase58Decoder();

/** A wire transaction in a method's params, checked as Solana's RPC checks it before anything else. */
function wireTransaction(params: Params, settings: Config): Transaction {
  const text = string(params, 0, 'transaction');
  const encoding = optionalChoice(settings, 'encoding', ['base58', 'base64'] as const) ?? 'base58';
  // Solana's own limits on the encoded text (1644 base64 / 1683 base58 characters for 1232 bytes),
  // checked before decoding so a huge string costs nothing.
  if (text.length > (encoding === 'base64' ? 1644 : 1683))
    throw invalidParams(`${encoding} encoded transaction too large: ${text.length} characters`);
  let bytes: Uint8Array;
  try {
    bytes = encoding === 'base64' ? base64Bytes(text) : new Uint8Array(getBase58Encoder().encode(text));
  } catch {
    throw invalidParams(`the transaction is not ${encoding}`);
  }
  if (bytes.length === 0 || bytes.length > MAX_TRANSACTION_BYTES)
    throw invalidParams(
      `${encoding} encoded transaction has ${bytes.length} bytes (1..${MAX_TRANSACTION_BYTES})`,
    );
  try {
    return getTransactionDecoder().decode(bytes);
  } catch (error) {
    throw invalidParams(
      `failed to deserialize the transaction: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function base64Bytes(text: string): Uint8Array {
  // Strict: Buffer.from would skip any character outside the alphabet instead of refusing the input.
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new Error('not base64');
  return new Uint8Array(getBase64Encoder().encode(text));
}

function statusOf(record: ProcessedTransaction) {
  return record.err === null ? { Ok: null } : { Err: record.err };
}

function simulationValue(bank: Bank, outcome: SimulationOutcome, settings: Config): Record<string, unknown> {
  const accountsSetting = settings['accounts'];
  let accounts: unknown = null;
  if (accountsSetting !== undefined && accountsSetting !== null) {
    if (typeof accountsSetting !== 'object' || Array.isArray(accountsSetting))
      throw invalidParams('accounts must be an object');
    const accountsConfig = accountsSetting as Config;
    const addresses = array([accountsConfig['addresses']], 0, 'accounts.addresses', 100).map((value, index) =>
      address([value], 0, `accounts.addresses[${index}]`),
    );
    const { encoding } = accountOptions(accountsConfig, 'base64');
    accounts = addresses.map((wanted) => {
      const after =
        outcome.postAccounts.find((account) => account.address === wanted) ?? bank.account(wanted);
      return after ? accountJson(bank, after, encoding, undefined) : null;
    });
  }
  const value: Record<string, unknown> = {
    err: outcome.err,
    logs: outcome.logs,
    accounts,
    unitsConsumed: outcome.unitsConsumed,
    returnData: outcome.returnData,
    // Not computed by this chain; null is what Solana's types allow for "not provided".
    fee: null,
    loadedAddresses: null,
    preBalances: null,
    postBalances: null,
    preTokenBalances: null,
    postTokenBalances: null,
    replacementBlockhash: outcome.replacementBlockhash,
  };
  if (optionalBoolean(settings, 'innerInstructions')) value['innerInstructions'] = outcome.innerInstructions;
  return value;
}

function preflightFailure(
  outcome: { err: unknown; logs: string[]; unitsConsumed?: bigint },
  message: string,
): RpcError {
  return new RpcError(SEND_TRANSACTION_PREFLIGHT_FAILURE, `Transaction simulation failed: ${message}`, {
    accounts: null,
    err: outcome.err,
    innerInstructions: null,
    logs: outcome.logs,
    returnData: null,
    unitsConsumed: outcome.unitsConsumed ?? 0n,
  });
}

function transactionJson(record: ProcessedTransaction, encoding: 'base58' | 'base64' | 'json'): unknown {
  const bytes = new Uint8Array(getBase64Encoder().encode(record.transaction));
  if (encoding === 'base64') return [record.transaction, 'base64'];
  if (encoding === 'base58') return [base58.decode(bytes), 'base58'];
  const transaction = getTransactionDecoder().decode(bytes);
  const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  if (!('instructions' in message))
    throw invalidParams('json encoding is not supported for version 1 transactions; use base64');
  return {
    signatures: Object.values(transaction.signatures).map((bytes) =>
      bytes ? base58.decode(bytes) : base58.decode(new Uint8Array(64)),
    ),
    message: {
      accountKeys: message.staticAccounts,
      header: {
        numRequiredSignatures: message.header.numSignerAccounts,
        numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
        numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
      },
      recentBlockhash: message.lifetimeToken,
      instructions: message.instructions.map((instruction) => ({
        programIdIndex: instruction.programAddressIndex,
        accounts: instruction.accountIndices ?? [],
        data: base58.decode(instruction.data ?? new Uint8Array()),
        stackHeight: null,
      })),
      ...(message.version === 0
        ? {
            addressTableLookups: (message.addressTableLookups ?? []).map((lookup) => ({
              accountKey: lookup.lookupTableAddress,
              writableIndexes: lookup.writableIndexes,
              readonlyIndexes: lookup.readonlyIndexes,
            })),
          }
        : {}),
    },
  };
}

export const TRANSACTION_METHODS: readonly RpcMethodEntry[] = [
  [
    'getSignatureStatuses',
    (chain, params) => {
      atMost(params, 2);
      const signatures = array(params, 0, 'signatures', 256).map(signature);
      const searchHistory = optionalBoolean(config(params, 1), 'searchTransactionHistory') ?? false;
      const bank = bankOf(chain);
      const height = Number(bank.blockHeight());
      return withContext(
        bank,
        signatures.map((wanted) => {
          const record = bank.history.get(wanted);
          if (!record || (!searchHistory && record.slot < height - RECENT_STATUS_BLOCKS)) return null;
          // Processed at once and never rolled back: every landed transaction is final here.
          return {
            slot: record.slot,
            confirmations: null,
            err: record.err,
            status: statusOf(record),
            confirmationStatus: 'finalized',
          };
        }),
      );
    },
  ],
  [
    'getSignaturesForAddress',
    (chain, params) => {
      atMost(params, 2);
      const wanted = address(params, 0);
      const settings = config(params, 1);
      const limit = optionalInteger(settings, 'limit', 1, 1000) ?? 1000;
      const before =
        settings['before'] === undefined || settings['before'] === null
          ? undefined
          : signature(settings['before']);
      const until =
        settings['until'] === undefined || settings['until'] === null
          ? undefined
          : signature(settings['until']);
      const bank = bankOf(chain);
      return bank.history.forAddress(wanted, { limit, before, until }).map((record) => ({
        signature: record.signature,
        slot: record.slot,
        err: record.err,
        memo: record.memo,
        blockTime: record.blockTime,
        confirmationStatus: 'finalized',
      }));
    },
  ],
  [
    'getTransaction',
    (chain, params) => {
      atMost(params, 2);
      const wanted = signature(params[0]);
      // Solana still takes the encoding alone as the second parameter (the old form).
      const settings: Config = typeof params[1] === 'string' ? { encoding: params[1] } : config(params, 1);
      const encoding =
        optionalChoice(settings, 'encoding', ['json', 'jsonParsed', 'base58', 'base64'] as const) ?? 'json';
      if (encoding === 'jsonParsed')
        throw invalidParams('jsonParsed is not supported by this local chain; use json or base64');
      const maxVersion = optionalInteger(settings, 'maxSupportedTransactionVersion', 0, 255);
      const bank = bankOf(chain);
      const record = bank.history.get(wanted);
      if (!record) return null;
      if (record.version !== 'legacy' && (maxVersion === undefined || maxVersion < record.version))
        throw new RpcError(
          UNSUPPORTED_TRANSACTION_VERSION,
          `Transaction version (${record.version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${record.version}`,
        );
      const meta: Record<string, unknown> = {
        err: record.err,
        status: statusOf(record),
        fee: record.fee,
        preBalances: record.preBalances,
        postBalances: record.postBalances,
        innerInstructions: record.innerInstructions,
        logMessages: record.logs,
        rewards: [],
        computeUnitsConsumed: record.computeUnitsConsumed,
      };
      if (maxVersion !== undefined) meta['loadedAddresses'] = { writable: [], readonly: [] };
      return {
        slot: record.slot,
        blockTime: record.blockTime,
        meta,
        transaction: transactionJson(record, encoding),
        ...(maxVersion !== undefined ? { version: record.version } : {}),
      };
    },
  ],
  [
    'sendTransaction',
    (chain, params) => {
      atMost(params, 2);
      const settings = config(params, 1);
      const transaction = wireTransaction(params, settings);
      const skipPreflight = optionalBoolean(settings, 'skipPreflight') ?? false;
      optionalInteger(settings, 'maxRetries', 0, Number.MAX_SAFE_INTEGER);
      const bank = bankOf(chain);
      if (!skipPreflight) {
        const preflight = bank.simulate(transaction, { sigVerify: true, replaceRecentBlockhash: false });
        if (preflight.err === SIGNATURE_FAILURE)
          throw new RpcError(
            TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
            'Transaction signature verification failure',
          );
        if (preflight.err !== null)
          throw preflightFailure(preflight, describeTransactionError(preflight.err));
      }
      const outcome = bank.process(transaction);
      // A node would accept a transaction that can never land and let it expire; this chain knows at once,
      // so it says so instead of leaving the caller waiting out the blockhash.
      if (!outcome.landed)
        throw preflightFailure({ err: outcome.err, logs: [] }, describeTransactionError(outcome.err));
      return outcome.record.signature;
    },
  ],
  [
    'simulateTransaction',
    (chain, params) => {
      atMost(params, 2);
      const settings = config(params, 1);
      const transaction = wireTransaction(params, settings);
      const sigVerify = optionalBoolean(settings, 'sigVerify') ?? false;
      const replaceRecentBlockhash = optionalBoolean(settings, 'replaceRecentBlockhash') ?? false;
      if (sigVerify && replaceRecentBlockhash)
        throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
      const bank = bankOf(chain);
      const outcome = bank.simulate(transaction, { sigVerify, replaceRecentBlockhash });
      if (sigVerify && outcome.err === SIGNATURE_FAILURE)
        throw new RpcError(
          TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
          'Transaction signature verification failure',
        );
      return withContext(bank, simulationValue(bank, outcome, settings));
    },
  ],
];
