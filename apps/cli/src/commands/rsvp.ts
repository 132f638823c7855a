import type { RsvpResult } from '@townhall/sdk';
import { acceptsAsset, PaymentRefusedError, TownhallError, USDC_ASSETS } from '@townhall/sdk';
import type { Command } from 'commander';
import { contextOf, type CommandContext } from '../context.js';
import { Refusal } from '../failure.js';
import type { CliIo } from '../io.js';
import { amount, code } from '../option-parsers.js';
import { formatAmount } from '@townhall/x402';
import { rsvpRequestLines, ticketLine, ticketPrice } from '../render/ticket-lines.js';
import { checkMaxPrice, chooseOffer, offersOf } from '../ticket-offer.js';

interface RsvpOptions {
  tier?: string;
  code?: string;
  maxPrice?: string;
  cancel?: boolean;
  network?: string;
  rpc?: string;
  asset?: string;
}

function describe(result: RsvpResult): string[] {
  // An event that needs approval, and you are not approved yet: your request, no ticket.
  if ('request' in result) return rsvpRequestLines(result.request);
  if (result.ticket.status === 'pending')
    return [
      'the payment is not confirmed yet: the seat is held until the facilitator says whether it settled',
      ticketLine(result.ticket),
    ];
  if (!result.created)
    return [`you already hold this ticket; nothing was charged`, ticketLine(result.ticket)];
  if (result.payment)
    return [
      result.payment.network.startsWith('ledger:')
        ? `paid ${ticketPrice(result.ticket, { atomic: true })} (ledger entry ${result.payment.transaction})`
        : `paid ${ticketPrice(result.ticket, { atomic: true })} on ${result.payment.network} (transaction ${result.payment.transaction})`,
      ticketLine(result.ticket),
    ];
  return [ticketLine(result.ticket)];
}

/**
 * The SDK's refusal to sign a payment, as the CLI's own error (`error payment.refused: ...`),
 * saying how to pay in the asset when only the caller's choice of assets refused it.
 */
export function refusalOf(error: PaymentRefusedError): Refusal {
  const hint = error.against === 'assets' ? `; to pay in it, pass --asset ${error.offered}` : '';
  return new Refusal(error.code, `${error.detail}${hint}`);
}

/**
 * Asks first without paying: a free event (or a ticket already held) answers at once; a paid one
 * answers 402 with its price, and only then does the buyer decide (`--max-price`, or yes on a TTY).
 */
async function rsvp(context: CommandContext, eventId: string, options: RsvpOptions): Promise<RsvpResult> {
  const agent = await context.agent();
  try {
    return await agent.tickets.rsvp(eventId, {
      ...(options.tier ? { tierId: options.tier } : {}),
      ...(options.code ? { code: options.code } : {}),
    });
  } catch (error) {
    if (!(error instanceof TownhallError) || error.code !== 'payment.required') throw error;
    const offers = offersOf(error.problem).filter(
      (entry) =>
        options.network === undefined ||
        entry.network === options.network ||
        (options.network === 'ledger' && entry.network.startsWith('ledger:')),
    );
    const offer = chooseOffer(offers, options.tier);
    // With a code the offer is at the price it gives, and --max-price is checked against that.
    const price = formatAmount(offer.maxAmountRequired, offer.asset, { atomic: true });
    const withCode = options.code ? ` with code ${options.code}` : '';
    // USDC unless --asset names another: the server names the asset, so the buyer must agree to it.
    const assets = options.asset === undefined ? undefined : [...USDC_ASSETS, options.asset];
    if (!acceptsAsset(offer.network, offer.asset, assets))
      throw new Refusal(
        'payment.refused',
        `a ticket (tier ${offer.extra.tierId}) is sold in ${offer.asset} on ${offer.network}, which you did not agree to pay in; to pay in it, pass --asset ${offer.asset}; nothing was paid`,
      );
    if (options.maxPrice !== undefined) checkMaxPrice(offer, options.maxPrice);
    else if (context.io.interactive) {
      const event = await context.visitor().events.get(eventId);
      context.note(
        `"${event.title}": a ticket (tier ${offer.extra.tierId}) costs ${price}${withCode}, paid to the host ${offer.payTo}`,
      );
      if (!(await context.io.confirm(`Pay ${price}?`)))
        throw new Refusal('payment.declined', 'nothing was paid');
    } else
      throw new Refusal(
        'payment.required',
        `a ticket (tier ${offer.extra.tierId}) costs ${price}${withCode}; pass --max-price ${offer.maxAmountRequired} to pay it`,
      );
    const rpcUrl = options.rpc ?? (context.io.env['TOWNHALL_SOLANA_RPC'] || undefined);
    const payer = assets === undefined ? agent : agent.withAssets(assets);
    return await payer.tickets
      .rsvp(eventId, {
        tierId: offer.extra.tierId,
        ...(options.code ? { code: options.code } : {}),
        maxPrice: options.maxPrice ?? offer.maxAmountRequired,
        asset: offer.asset,
        network: offer.network,
        ...(rpcUrl === undefined ? {} : { rpcUrl }),
      })
      .catch((refused: unknown) => {
        throw refused instanceof PaymentRefusedError ? refusalOf(refused) : refused;
      });
  }
}

/** `rsvp`: get a ticket, paying through x402 when the event is paid. */
export function registerRsvp(program: Command, io: CliIo): void {
  program
    .command('rsvp')
    .description(
      'get a ticket for an event; a paid one shows the price and asks first (or pays up to --max-price); an event that needs approval takes it as your request to come until the host approves it',
    )
    .argument('<eventId>')
    .option('--tier <tierId>', 'the tier to buy (tiered events)')
    .option(
      '--code <code>',
      "a host's code: its discount (the price shown and paid is the discounted one; free: a ticket at once), and the hidden tiers it unlocks",
      code,
    )
    .option(
      '--max-price <amount>',
      'pay without asking, up to this many atomic units; refuse a higher price',
      amount,
    )
    .option(
      '--network <network>',
      'where to pay: ledger, or a Solana cluster (CAIP-2, e.g. solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1) to pay USDC with your key',
    )
    .option(
      '--rpc <url>',
      'Solana JSON-RPC for a payment on chain (default: TOWNHALL_SOLANA_RPC, else the cluster public endpoint)',
    )
    .option(
      '--asset <asset>',
      'pay in this asset too (a ledger asset such as EURC, or an SPL mint address); without it only USDC is paid',
    )
    .option('--cancel', 'give back your free ticket instead')
    .action(async (eventId: string, options: RsvpOptions, command: Command) => {
      const context = contextOf(command, io);
      if (options.cancel) {
        const agent = await context.agent();
        const ticket = await agent.tickets.release(eventId);
        context.print(ticket, (released) => `gave back ${ticketLine(released)}`);
        return;
      }
      context.print(await rsvp(context, eventId, options), describe);
    });
}
