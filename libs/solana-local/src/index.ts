export { LocalChain, SOLANA_DEVNET, USDC_DEVNET_MINT, type LocalChainOptions } from './local-chain.js';
export { LocalChainError, type LocalChainFailure } from './errors.js';
export { createLocalFacilitator } from './local-facilitator.js';
export { startLocalRpc, type LocalRpc } from './rpc/server.js';
export type { TransactionErrorJson } from './transaction-error.js';
