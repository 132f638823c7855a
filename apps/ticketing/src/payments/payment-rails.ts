import { ConfigError, type Logger } from '@townhall/platform/service';
import type { LocalChain } from '@townhall/solana-local';
import { ledgerNetwork, type Facilitator } from '@townhall/x402';
import type { SolanaChain } from '@townhall/x402/svm';
import type { TicketingConfig } from '../config.js';

/**
 * How this deployment takes money (X402_FACILITATOR): the facilitator that verifies and settles,
 * the network and asset its 402s offer, the chain it can ask when a facilitator leaves a payment
 * undecided, and with `solana-local` the chain itself (in this process) and its JSON-RPC.
 */
export interface PaymentRails {
  facilitator: Facilitator | null;
  network: string;
  /** The SPL mint prices are paid in on Solana; undefined on the ledger. */
  asset: string | undefined;
  /** Solana JSON-RPC reads, for reconciliation; null on the ledger (a facilitator settles on Solana). */
  chain: SolanaChain | null;
  /** solana-local only: the runtime (its faucet) and the URL of its JSON-RPC. */
  local: { chain: LocalChain; rpcUrl: string } | null;
  close(): Promise<void>;
}

/**
 * The rails `X402_FACILITATOR` names. What only some rails need is loaded only for them (the
 * facilitator clients, @solana/kit, LiteSVM's native module): a ledger deployment starts without.
 */
export async function openPaymentRails(config: TicketingConfig, logger: Logger): Promise<PaymentRails> {
  switch (config.X402_FACILITATOR) {
    case 'ledger':
      return {
        facilitator: null,
        network: ledgerNetwork(config.TOWNHALL_ENV),
        asset: undefined,
        chain: null,
        local: null,
        close: async () => undefined,
      };
    case 'http': {
      if (!config.X402_FACILITATOR_URL || !config.X402_NETWORK) {
        throw new ConfigError(
          'Invalid configuration:\n  X402_FACILITATOR_URL, X402_NETWORK: required when X402_FACILITATOR=http',
        );
      }
      // A solana: network (config.ts admits no other here): the service reads its payments itself.
      const network = config.X402_NETWORK;
      const { HttpFacilitator } = await import('@townhall/x402/server');
      const { defaultRpcUrl, defaultUsdcMint, SolanaChain } = await import('@townhall/x402/svm');
      const asset = config.X402_ASSET ?? defaultUsdcMint(network);
      if (!asset) {
        throw new ConfigError(
          `Invalid configuration:\n  X402_ASSET: required on ${network} (no default USDC mint)`,
        );
      }
      const rpcUrl = config.X402_RPC_URL ?? defaultRpcUrl(network);
      // Only the chain concludes a payment its facilitator may have sent: without an RPC one left
      // open would wait for a facilitator that may never say.
      if (!rpcUrl) {
        throw new ConfigError(
          `Invalid configuration:\n  X402_RPC_URL: required on ${network} (no public RPC known), to read the chain`,
        );
      }
      return {
        facilitator: new HttpFacilitator(config.X402_FACILITATOR_URL, {
          timeoutMs: config.X402_FACILITATOR_TIMEOUT_MS,
        }),
        network,
        asset,
        chain: new SolanaChain(rpcUrl),
        local: null,
        close: async () => undefined,
      };
    }
    case 'solana-local': {
      // Its keys are test keys on this machine, and its USDC is minted by a faucet.
      if (config.TOWNHALL_ENV === 'production') {
        throw new ConfigError(
          'Invalid configuration:\n  X402_FACILITATOR: solana-local is a local test chain, never production money',
        );
      }
      const [
        { LocalChain, createLocalFacilitator, startLocalRpc, SOLANA_DEVNET },
        { InProcessFacilitator },
        { SolanaChain },
      ] = await Promise.all([
        import('@townhall/solana-local'),
        import('@townhall/x402/server'),
        import('@townhall/x402/svm'),
      ]);
      const network = config.X402_NETWORK ?? SOLANA_DEVNET;
      const chain = await LocalChain.open({
        network,
        ...(config.X402_ASSET ? { mint: config.X402_ASSET } : {}),
        ...(config.SOLANA_LOCAL_STATE ? { dataFile: config.SOLANA_LOCAL_STATE } : {}),
        blockhashLifetimeMs: config.SOLANA_LOCAL_BLOCKHASH_LIFETIME_MS,
        onPersistError: (error) => logger.error({ err: error }, 'solana-local could not save its state'),
      });
      const rpc = await startLocalRpc(chain, { port: config.SOLANA_LOCAL_RPC_PORT });
      return {
        facilitator: new InProcessFacilitator(createLocalFacilitator(chain)),
        network,
        asset: chain.mint,
        chain: new SolanaChain(rpc.url),
        local: { chain, rpcUrl: rpc.url },
        close: async () => {
          await rpc.close();
          await chain.close();
        },
      };
    }
  }
}
