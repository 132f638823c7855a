import {
  DEVNET_RPC_URL,
  MAINNET_RPC_URL,
  SOLANA_DEVNET_CAIP2,
  SOLANA_MAINNET_CAIP2,
  SOLANA_TESTNET_CAIP2,
  TESTNET_RPC_URL,
  USDC_DEVNET_ADDRESS,
  USDC_MAINNET_ADDRESS,
  USDC_TESTNET_ADDRESS,
} from '@x402/svm';

/** Circle's USDC mint on a Solana cluster (as @x402/svm knows it), if the network is one. */
export function defaultUsdcMint(network: string): string | undefined {
  switch (network) {
    case SOLANA_MAINNET_CAIP2:
      return USDC_MAINNET_ADDRESS;
    case SOLANA_DEVNET_CAIP2:
      return USDC_DEVNET_ADDRESS;
    case SOLANA_TESTNET_CAIP2:
      return USDC_TESTNET_ADDRESS;
    default:
      return undefined;
  }
}

/** The cluster's public JSON-RPC (rate-limited: production deployments set X402_RPC_URL). */
export function defaultRpcUrl(network: string): string | undefined {
  switch (network) {
    case SOLANA_MAINNET_CAIP2:
      return MAINNET_RPC_URL;
    case SOLANA_DEVNET_CAIP2:
      return DEVNET_RPC_URL;
    case SOLANA_TESTNET_CAIP2:
      return TESTNET_RPC_URL;
    default:
      return undefined;
  }
}
