import type { CodeFields, CodeView } from '@townhall/sdk';
import type { Command } from 'commander';
import { contextOf, type CommandContext } from '../context.js';
import { UsageError } from '../failure.js';
import type { CliIo } from '../io.js';
import { pageOptions, type PageOptions } from '../list-options.js';
import { amount, code, instant, integer, tierIds } from '../option-parsers.js';
import { pageLines } from '../render/table.js';
import { codeLine, codeTable } from '../render/ticket-lines.js';

interface CreateOptions {
  percentOff?: number;
  amountOff?: string;
  free?: boolean;
  maxUses?: number;
  tiers?: string[];
  unlocks?: string[];
  expires?: string;
}

/**
 * The POST /events/{id}/codes body the options ask for. One discount at most, and a code gives a
 * discount or unlocks hidden tiers (or both): checked here, before the key is even read.
 */
export function codeFields(value: string, options: CreateOptions): CodeFields {
  const discounts = [options.percentOff, options.amountOff, options.free].filter((d) => d !== undefined);
  if (discounts.length > 1) throw new UsageError('--percent-off, --amount-off and --free exclude each other');
  if (discounts.length === 0 && options.unlocks === undefined)
    throw new UsageError(
      'a code gives a discount (--percent-off, --amount-off or --free) or unlocks hidden tiers (--unlocks), or both',
    );
  return {
    code: value,
    ...(options.percentOff === undefined ? {} : { percentOff: options.percentOff }),
    ...(options.amountOff === undefined ? {} : { amountOff: options.amountOff }),
    ...(options.free ? { free: true as const } : {}),
    ...(options.maxUses === undefined ? {} : { maxUses: options.maxUses }),
    ...(options.tiers === undefined ? {} : { tierIds: options.tiers }),
    ...(options.unlocks === undefined ? {} : { unlocksTierIds: options.unlocks }),
    ...(options.expires === undefined ? {} : { expiresAt: options.expires }),
  };
}

/**
 * The asset a code's `amountOff` counts in: the event's. Read (a public read) only when a person is
 * shown such a code, so that `500` reads as `0.0005 USDC`.
 */
async function amountAsset(
  context: CommandContext,
  eventId: string,
  codes: readonly CodeView[],
): Promise<string | undefined> {
  if (context.settings.json || !codes.some((one) => one.amountOff !== null)) return undefined;
  const { ticketing } = await context.visitor().events.get(eventId);
  return ticketing.mode === 'free' ? undefined : ticketing.asset;
}

/** `codes create|list|remove`: discount and access codes of an event (host). */
export function registerCodes(program: Command, io: CliIo): void {
  const codes = program
    .command('codes')
    .description(
      'discount and access codes of an event you host: an agent sends one with rsvp --code for its discount, or to buy a hidden tier it unlocks',
    );

  codes
    .command('create')
    .description(
      'create a code (case-insensitive, unique in the event): one discount, and/or the hidden tiers it unlocks (events create --tier id:name:price:capacity:hidden)',
    )
    .argument('<eventId>')
    .argument('<code>', '3 to 32 letters, digits, _ and -', code)
    .option(
      '--percent-off <n>',
      'take this percent off the price (1-100; the discount rounds down)',
      integer(1, 100),
    )
    .option('--amount-off <amount>', 'take this many atomic units off the price (not below 0)', amount)
    .option('--free', 'make the ticket free: it is issued at once, with nothing to pay')
    .option(
      '--max-uses <n>',
      'how many tickets may be bought with it (default: no limit)',
      integer(1, 1_000_000),
    )
    .option(
      '--tiers <ids>',
      'the tiers it applies to, comma separated (default: every tier it may buy: the visible ones and those it unlocks)',
      tierIds,
    )
    .option('--unlocks <ids>', 'hidden tiers it lets an rsvp buy, comma separated', tierIds)
    .option('--expires <when>', 'when it stops working: +<duration> (e.g. +7d) or RFC 3339', instant)
    .action(async (eventId: string, value: string, options: CreateOptions, command: Command) => {
      const fields = codeFields(value, options);
      const context = contextOf(command, io);
      const agent = await context.agent();
      const created = await agent.codes.create(eventId, fields);
      const asset = await amountAsset(context, eventId, [created]);
      context.print(created, (shown) => `created: ${codeLine(shown, asset)}`);
    });

  pageOptions(
    codes
      .command('list')
      .description("the event's codes, oldest first, with how many tickets carry each")
      .argument('<eventId>'),
  ).action(async (eventId: string, options: PageOptions, command: Command) => {
    const context = contextOf(command, io);
    const agent = await context.agent();
    const page = await agent.codes.list(eventId, options);
    const asset = await amountAsset(context, eventId, page.items);
    context.print(page, (result) => pageLines(result, (items) => codeTable(items, asset)));
  });

  codes
    .command('remove')
    .description('remove a code: no rsvp can use it any more; tickets bought with it keep it')
    .argument('<eventId>')
    .argument('<code>', 'the code, in any case', code)
    .action(async (eventId: string, value: string, _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      const removed = await agent.codes.remove(eventId, value);
      const asset = await amountAsset(context, eventId, [removed]);
      context.print(removed, (shown) => `removed: ${codeLine(shown, asset)}`);
    });
}
