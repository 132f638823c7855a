// Solana's clusters and their USDC, as plain strings: the SDK's main entry checks payments against
// them, and amounts are shown in USDC, without loading @solana/kit or the x402 client.

/** Solana's clusters as CAIP-2 ids: the only networks the official x402 Solana client pays on. */
export const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
export const SOLANA_DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
export const SOLANA_TESTNET = 'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z';
export const SOLANA_CLUSTERS = [SOLANA_MAINNET, SOLANA_DEVNET, SOLANA_TESTNET] as const;

/** Circle's USDC mint on each Solana cluster (the default asset of a Townhall sale there). */
export const USDC_MINTS: Readonly<Record<string, string>> = {
  [SOLANA_MAINNET]: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  [SOLANA_DEVNET]: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
  [SOLANA_TESTNET]: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
};
