import { formatAmount } from '@townhall/x402';
import type { Command } from 'commander';
import { PaymentRefusedError, USDC_ASSETS, type RefundView } from '@townhall/sdk';
import { contextOf } from '../context.js';
import type { CliIo } from '../io.js';
import { pageOptions, printSignedPage, type PageOptions } from '../list-options.js';
import { refusalOf } from './rsvp.js';
import { solanaSettings } from './wallet.js';

function refundLine(refund: RefundView): string {
  const paid = refund.transaction ? ` (transaction ${refund.transaction})` : '';
  return `${refund.id}  ${refund.status.padEnd(6)}  ${formatAmount(refund.amount, refund.asset, { atomic: true })} to ${refund.holderId}${paid}`;
}

/** `refunds list|pay`: refunds a cancelled event owes for tickets paid on chain; the host pays them. */
export function registerRefunds(program: Command, io: CliIo): void {
  const refunds = program
    .command('refunds')
    .description(
      'refunds of tickets paid on chain, owed by a cancelled event; the host pays them with its key',
    );

  pageOptions(
    refunds
      .command('list')
      .description('the refunds of an event: all of them for its host, your own otherwise')
      .argument('<eventId>'),
  ).action((eventId: string, options: PageOptions, command: Command) =>
    printSignedPage(
      command,
      io,
      (agent) => agent.refunds.list(eventId, options),
      (items) => items.map(refundLine),
    ),
  );

  refunds
    .command('pay')
    .description(
      'pay every refund the event still owes, each a USDC transfer signed with your key (the host)',
    )
    .argument('<eventId>')
    .option('--rpc <url>', 'Solana JSON-RPC (default: TOWNHALL_SOLANA_RPC, else the cluster public endpoint)')
    .option('--asset <mint>', 'pay refunds in this SPL mint too; without it only USDC is paid')
    .action(async (eventId: string, options: { rpc?: string; asset?: string }, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      const payer = options.asset === undefined ? agent : agent.withAssets([...USDC_ASSETS, options.asset]);
      const settings = options.rpc ? { rpcUrl: options.rpc } : { rpcUrl: solanaSettings(context, {}).rpcUrl };
      // Every refund's payment is checked before any is signed: a refused one pays none.
      const paid = await payer.refunds.payAll(eventId, settings).catch((refused: unknown) => {
        throw refused instanceof PaymentRefusedError ? refusalOf(refused) : refused;
      });
      context.print(paid, (results) =>
        results.length === 0 ? ['no refund is owed'] : results.map(refundLine),
      );
    });
}
