// What the method modules share: the signature of a method and Solana's `{ context, value }` wrapper.
import type { Bank } from '../bank.js';
import type { LocalChain } from '../local-chain.js';
import type { Params } from './params.js';

export type RpcMethod = (chain: LocalChain, params: Params) => unknown;

/** A method as the table lists it: the JSON-RPC name it answers to, and its handler. */
export type RpcMethodEntry = readonly [name: string, method: RpcMethod];

export function withContext(bank: Bank, value: unknown): { context: { slot: bigint }; value: unknown } {
  return { context: { slot: bank.blockHeight() }, value };
}
