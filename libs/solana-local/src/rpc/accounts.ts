// Account reads over JSON-RPC and the account encodings they share with simulateTransaction.
import { getBase58Decoder, getBase64Decoder, type Address, type EncodedAccount } from '@solana/kit';
import type { Bank } from '../bank.js';
import { bankOf } from '../local-chain.js';
import {
  decodeMintAccount,
  decodeTokenAccount,
  parsedTokenProgramAccount,
  uiTokenAmount,
} from '../token-accounts.js';
import {
  address,
  array,
  atMost,
  config,
  integer,
  invalidParams,
  optionalChoice,
  optionalInteger,
  type Config,
} from './params.js';
import { withContext, type RpcMethodEntry } from './rpc-method.js';

/** Solana writes `rentEpoch` u64::MAX for every rent-exempt account (all of them, since rent collection ended). */
const RENT_EPOCH = 2n ** 64n - 1n;
const MAX_ACCOUNT_SIZE = 10 * 1024 * 1024;
const ACCOUNT_ENCODINGS = ['base58', 'base64', 'base64+zstd', 'jsonParsed', 'binary'] as const;
export type AccountEncoding = (typeof ACCOUNT_ENCODINGS)[number];

const base58 = getBase58Decoder();
const base64 = getBase64Decoder();

function encodeData(data: Uint8Array, encoding: AccountEncoding): string | [string, string] {
  switch (encoding) {
    case 'binary':
    case 'base58':
      if (data.length > 128)
        throw invalidParams(
          'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.',
        );
      return encoding === 'binary' ? base58.decode(data) : [base58.decode(data), 'base58'];
    case 'base64':
    case 'jsonParsed':
      return [base64.decode(data), 'base64'];
    case 'base64+zstd':
      throw invalidParams('base64+zstd is not supported by this local chain; use base64');
  }
}

export function accountJson(
  bank: Bank,
  account: EncodedAccount,
  encoding: AccountEncoding,
  slice: { offset: number; length: number } | undefined,
): Record<string, unknown> {
  const full = new Uint8Array(account.data);
  let data: unknown;
  const parsed =
    encoding === 'jsonParsed'
      ? parsedTokenProgramAccount(account.programAddress, full, (mint) => decimalsOf(bank, mint))
      : undefined;
  if (parsed) data = parsed;
  else data = encodeData(slice ? full.slice(slice.offset, slice.offset + slice.length) : full, encoding);
  return {
    data,
    executable: account.executable,
    lamports: account.lamports,
    owner: account.programAddress,
    rentEpoch: RENT_EPOCH,
    space: BigInt(full.length),
  };
}

function decimalsOf(bank: Bank, mint: Address): number | undefined {
  const account = bank.account(mint);
  return account
    ? decodeMintAccount(account.programAddress, new Uint8Array(account.data))?.decimals
    : undefined;
}

export function accountOptions(settings: Config, defaultEncoding: AccountEncoding) {
  const encoding = optionalChoice(settings, 'encoding', ACCOUNT_ENCODINGS) ?? defaultEncoding;
  const sliceValue = settings['dataSlice'];
  let slice: { offset: number; length: number } | undefined;
  if (sliceValue !== undefined && sliceValue !== null) {
    if (typeof sliceValue !== 'object' || Array.isArray(sliceValue))
      throw invalidParams('dataSlice must be an object');
    const sliceConfig = sliceValue as Config;
    slice = {
      offset: optionalInteger(sliceConfig, 'offset', 0, MAX_ACCOUNT_SIZE) ?? 0,
      length: optionalInteger(sliceConfig, 'length', 0, MAX_ACCOUNT_SIZE) ?? 0,
    };
  }
  return { encoding, slice };
}

export const ACCOUNT_METHODS: readonly RpcMethodEntry[] = [
  [
    'getAccountInfo',
    (chain, params) => {
      atMost(params, 2);
      const wanted = address(params, 0);
      const { encoding, slice } = accountOptions(config(params, 1), 'binary');
      const bank = bankOf(chain);
      const account = bank.account(wanted);
      return withContext(bank, account ? accountJson(bank, account, encoding, slice) : null);
    },
  ],
  [
    'getMultipleAccounts',
    (chain, params) => {
      atMost(params, 2);
      const addresses = array(params, 0, 'addresses', 100).map((value, index) =>
        address([value], 0, `addresses[${index}]`),
      );
      const { encoding, slice } = accountOptions(config(params, 1), 'base64');
      const bank = bankOf(chain);
      return withContext(
        bank,
        addresses.map((wanted) => {
          const account = bank.account(wanted);
          return account ? accountJson(bank, account, encoding, slice) : null;
        }),
      );
    },
  ],
  [
    'getBalance',
    (chain, params) => {
      atMost(params, 2);
      const wanted = address(params, 0);
      config(params, 1);
      const bank = bankOf(chain);
      return withContext(bank, bank.lamports(wanted));
    },
  ],
  [
    'getTokenAccountBalance',
    (chain, params) => {
      atMost(params, 2);
      const wanted = address(params, 0, 'token account');
      config(params, 1);
      const bank = bankOf(chain);
      const account = bank.account(wanted);
      if (!account) throw invalidParams('could not find account');
      const token = decodeTokenAccount(account.programAddress, new Uint8Array(account.data));
      if (!token) throw invalidParams('not a Token account');
      const decimals = decimalsOf(bank, token.mint);
      if (decimals === undefined) throw invalidParams('could not find mint');
      return withContext(bank, uiTokenAmount(token.amount, decimals));
    },
  ],
  [
    'getMinimumBalanceForRentExemption',
    (chain, params) => {
      atMost(params, 2);
      const size = integer(params, 0, 'data length', 0, MAX_ACCOUNT_SIZE);
      config(params, 1);
      return bankOf(chain).minimumBalanceForRentExemption(BigInt(size));
    },
  ],
];
