// x402 `exact` on Solana, for servers: what a payment's transaction moves and who authorized it,
// the checks before a facilitator is asked, and the chain read when a facilitator leaves a
// payment undecided. A separate entry (`@townhall/x402/svm`) so the root stays free of @solana/kit.
export * from './svm/networks.js';
export * from './svm/exact-svm-transfer.js';
export * from './svm/check-exact-svm.js';
export * from './svm/solana-chain.js';
export * from './svm/payment-search.js';
