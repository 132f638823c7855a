import type { Command } from 'commander';
import { contextOf } from '../context.js';
import type { CliIo } from '../io.js';
import { pageOptions, printSignedPage, type PageOptions } from '../list-options.js';
import { amount } from '../option-parsers.js';
import { formatAmount } from '@townhall/x402';
import { balanceLines, ledgerTable } from '../render/ticket-lines.js';

/** `ledger balance|list|faucet`: the agent's money, as immutable entries. */
export function registerLedger(program: Command, io: CliIo): void {
  const ledger = program
    .command('ledger')
    .description('your balance and ledger entries; the faucet where enabled');

  ledger
    .command('balance')
    .description('your balance per asset')
    .action(async (_options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      context.print(await agent.ledger.balance(), balanceLines);
    });

  pageOptions(
    ledger.command('list').description('your ledger entries (negative amounts are money out)'),
  ).action((options: PageOptions, command: Command) =>
    printSignedPage(command, io, (agent) => agent.ledger.entries(options), ledgerTable),
  );

  ledger
    .command('faucet')
    .description(
      'credit yourself test money (only where the server runs with LEDGER_FAUCET=true; by default at most 1000000 a call, 10 calls an hour)',
    )
    .argument('<amount>', 'atomic units', amount)
    .option('--asset <asset>', 'the asset (default USDC)')
    .action(async (value: string, options: { asset?: string }, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      const entry = await agent.ledger.faucet(value, options.asset);
      context.print(
        entry,
        (credited) =>
          `credited ${formatAmount(credited.amount, credited.asset, { atomic: true })} (entry ${credited.id})`,
      );
    });
}
