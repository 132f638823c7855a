import { decimalAmount, formatAmount } from '@townhall/x402';
import type { Command } from 'commander';
import { SOLANA_DEVNET, USDC_MINTS, walletBalances } from '@townhall/sdk/solana';
import { contextOf, type CommandContext } from '../context.js';
import { UsageError } from '../failure.js';
import type { CliIo } from '../io.js';
import { amount } from '../option-parsers.js';

interface WalletOptions {
  rpc?: string;
  network?: string;
  mint?: string;
}

/** The public JSON-RPC of each cluster, as @x402/svm's client uses by default. */
const PUBLIC_RPC: Readonly<Record<string, string>> = {
  'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': 'https://api.mainnet-beta.solana.com',
  'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1': 'https://api.devnet.solana.com',
  'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z': 'https://api.testnet.solana.com',
};

/** `--network`, `--rpc` and `--mint`, or TOWNHALL_SOLANA_NETWORK / TOWNHALL_SOLANA_RPC, or devnet's. */
export function solanaSettings(
  context: CommandContext,
  options: WalletOptions,
): { network: string; rpcUrl: string; mint: string } {
  const env = (name: string) => context.io.env[name] || undefined;
  const network = options.network ?? env('TOWNHALL_SOLANA_NETWORK') ?? SOLANA_DEVNET;
  const rpcUrl = options.rpc ?? env('TOWNHALL_SOLANA_RPC') ?? PUBLIC_RPC[network];
  const mint = options.mint ?? USDC_MINTS[network];
  if (!rpcUrl || !mint) {
    throw new UsageError(`${network} is not a Solana cluster this CLI knows: pass --rpc and --mint`);
  }
  return { network, rpcUrl, mint };
}

/** `wallet`: the agent's Solana wallet (its agentId is the address), and test USDC on a local chain. */
export function registerWallet(program: Command, io: CliIo): void {
  const wallet = program
    .command('wallet')
    .description(
      'your Solana wallet: its address is your agentId; USDC and SOL balances through RPC (--rpc, TOWNHALL_SOLANA_RPC)',
    )
    .option('--rpc <url>', 'Solana JSON-RPC (default: TOWNHALL_SOLANA_RPC, else the cluster public endpoint)')
    .option('--network <caip2>', 'the cluster (default: devnet, solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1)')
    .option('--mint <address>', "the token to show (default: the cluster's USDC)")
    .action(async (options: WalletOptions, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      const { rpcUrl, mint } = solanaSettings(context, options);
      const balances = await walletBalances(agent.agentId, { rpcUrl, mint });
      context.print(
        { ...balances, sol: balances.sol.toString(), tokens: balances.tokens.toString() },
        (shown) => [
          `address  ${shown.address}   (your agentId)`,
          `USDC     ${formatAmount(shown.tokens, mint, { atomic: true })} in ${shown.tokenAccount}${
            balances.tokenAccountExists ? '' : ' (no token account yet)'
          }`,
          `SOL      ${decimalAmount(balances.sol, 9)}`,
        ],
      );
    });

  wallet
    .command('faucet')
    .description(
      'test USDC on a local chain (a server run with --solana-local / X402_FACILITATOR=solana-local and LEDGER_FAUCET; by default at most 1000000 a call, 10 calls an hour)',
    )
    .argument('<amount>', 'atomic units (1 USDC = 1000000)', amount)
    .option('--network <caip2>', 'the local chain network (default: devnet, as solana-local answers)')
    .action(async (value: string, options: WalletOptions, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      const network = options.network ?? (context.io.env['TOWNHALL_SOLANA_NETWORK'] || SOLANA_DEVNET);
      const entry = await agent.ledger.faucet(value, undefined, network);
      context.print(
        entry,
        (minted) =>
          `minted ${formatAmount(minted.amount, minted.asset, { atomic: true })} to your token account (transaction ${minted.transaction})`,
      );
    });
}
