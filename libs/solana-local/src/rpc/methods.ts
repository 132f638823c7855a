// The local RPC's method table: the chain's own methods, with the account and transaction ones composed in.
import { createRequire } from 'node:module';
import { bankOf } from '../local-chain.js';
import { ACCOUNT_METHODS } from './accounts.js';
import { atMost, blockhash, config } from './params.js';
import { withContext, type RpcMethod, type RpcMethodEntry } from './rpc-method.js';
import { TRANSACTION_METHODS } from './transactions.js';

export type { RpcMethod } from './rpc-method.js';

const LITESVM_VERSION = (createRequire(import.meta.url)('litesvm/package.json') as { version: string })
  .version;

/** What the chain itself answers: blockhashes, heights, health and identity. */
const CHAIN_METHODS: readonly RpcMethodEntry[] = [
  [
    'getLatestBlockhash',
    (chain, params) => {
      atMost(params, 1);
      config(params, 0);
      const bank = bankOf(chain);
      return withContext(bank, bank.latestBlockhash());
    },
  ],
  [
    'isBlockhashValid',
    (chain, params) => {
      atMost(params, 2);
      const wanted = blockhash(params, 0);
      config(params, 1);
      const bank = bankOf(chain);
      return withContext(bank, bank.isBlockhashValid(wanted));
    },
  ],
  [
    'getBlockHeight',
    (chain, params) => {
      atMost(params, 1);
      config(params, 0);
      return bankOf(chain).blockHeight();
    },
  ],
  [
    'getSlot',
    (chain, params) => {
      atMost(params, 1);
      config(params, 0);
      return bankOf(chain).blockHeight();
    },
  ],
  [
    'getHealth',
    (chain, params) => {
      atMost(params, 0);
      bankOf(chain);
      return 'ok';
    },
  ],
  [
    'getVersion',
    (chain, params) => {
      atMost(params, 0);
      bankOf(chain);
      // Not an Agave node: the version names the runtime that answers (a semver prerelease of 0.0.0).
      return { 'solana-core': `0.0.0-litesvm.${LITESVM_VERSION}`, 'feature-set': 0 };
    },
  ],
  [
    'getGenesisHash',
    (chain, params) => {
      atMost(params, 0);
      bankOf(chain);
      return chain.genesisHash;
    },
  ],
];

/** Every method served, with the exact result shapes of Solana's JSON-RPC (u64 as JSON numbers). */
export const RPC_METHODS: ReadonlyMap<string, RpcMethod> = new Map<string, RpcMethod>([
  ...CHAIN_METHODS,
  ...ACCOUNT_METHODS,
  ...TRANSACTION_METHODS,
]);
