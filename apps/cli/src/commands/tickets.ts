import { readFile } from 'node:fs/promises';
import { formatAmount } from '@townhall/x402';
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { Refusal, UsageError } from '../failure.js';
import type { CliIo } from '../io.js';
import { pageOptions, printSignedPage, type PageOptions } from '../list-options.js';
import { ticketTable } from '../render/ticket-lines.js';

/**
 * `tickets mine|attendees|verify` (also `ticket`): the tickets you hold, who holds one for your
 * event, and whether a ticket's receipt is the service's.
 */
export function registerTickets(program: Command, io: CliIo): void {
  const tickets = program
    .command('tickets')
    .alias('ticket')
    .description("your tickets; the attendees of an event you host or moderate; a receipt's signature");

  pageOptions(tickets.command('mine').description('the tickets you hold (and held), oldest first')).action(
    (options: PageOptions, command: Command) =>
      printSignedPage(
        command,
        io,
        (agent) => agent.tickets.mine(options),
        (items) => ticketTable(items, 'event'),
      ),
  );

  pageOptions(
    tickets
      .command('attendees')
      .description('who holds an active ticket for an event (host and moderators)')
      .argument('<eventId>'),
  ).action((eventId: string, options: PageOptions, command: Command) =>
    printSignedPage(
      command,
      io,
      (agent) => agent.tickets.attendees(eventId, options),
      (items) => ticketTable(items, 'holder'),
    ),
  );

  registerTicketVerify(tickets, io);
}

/** A receipt's claims, once it verified, and the key that signed it. */
interface VerifiedReceipt {
  verified: true;
  kid: string | undefined;
  resourceUrl: string;
  payer: string;
  amount: string | null;
  asset: string | null;
  network: string;
  transaction: string | null;
  issuedAt: string;
}

/**
 * `ticket verify <receipt>`: checks a ticket's x402 receipt (docs/protocol/payments.md "The
 * receipt") offline against the service's JWK set, fetched from `<url>/.well-known/jwks.json` or
 * read from `--jwks <file>`, and prints what it names. Exit 1 (`receipt.invalid`) when it does not
 * verify.
 */
export function registerTicketVerify(tickets: Command, io: CliIo): void {
  tickets
    .command('verify')
    .description("checks a ticket's receipt against the service's keys, offline, and prints what it names")
    .argument(
      '<receipt>',
      "the receipt: its JSON or JWS, a ticket's JSON, the PAYMENT-RESPONSE header, or @<file> holding one",
    )
    .option('--jwks <file>', 'the key set, from a file (default: fetched from <url>/.well-known/jwks.json)')
    .action(async (text: string, options: { jwks?: string }, command: Command) => {
      const context = contextOf(command, io);
      const { parseReceipt, verifyTicketReceipt, ReceiptError } = await import('@townhall/x402/receipts');
      const source = text.startsWith('@') ? await readText(text.slice(1), 'the receipt') : text;
      const keySet = options.jwks
        ? parseJson(await readText(options.jwks, '--jwks'), '--jwks')
        : await fetchKeySet(context.settings.url);
      let verified: VerifiedReceipt;
      try {
        const receipt = parseReceipt(source);
        const claims = await verifyTicketReceipt(receipt, keySet);
        const kid = (
          JSON.parse(atob(receipt.signature.split('.')[0]!.replace(/-/g, '+').replace(/_/g, '/'))) as {
            kid?: string;
          }
        ).kid;
        verified = {
          verified: true,
          kid,
          resourceUrl: claims.resourceUrl,
          payer: claims.payer,
          amount: claims.amount ?? null,
          asset: claims.asset ?? null,
          network: claims.network,
          transaction: claims.transaction ?? null,
          issuedAt: new Date(claims.issuedAt * 1000).toISOString(),
        };
      } catch (error) {
        if (error instanceof ReceiptError) throw new Refusal('receipt.invalid', error.message);
        throw error;
      }
      context.print(verified, (receipt) => [
        `verified: signed by key ${receipt.kid ?? '(no kid)'}`,
        `  resource     ${receipt.resourceUrl}`,
        `  payer        ${receipt.payer}`,
        `  amount       ${receiptAmount(receipt)}`,
        `  network      ${receipt.network}`,
        `  transaction  ${receipt.transaction ?? '(not named)'}`,
        `  issued at    ${receipt.issuedAt}`,
      ]);
    });
}

/** `0.0025 USDC (2500)`; as the receipt names it when it names no asset, or no whole amount. */
function receiptAmount({ amount, asset }: VerifiedReceipt): string {
  if (amount === null) return '(not named)';
  if (asset === null || !/^[0-9]+$/.test(amount)) return `${amount} ${asset ?? ''}`.trimEnd();
  return formatAmount(amount, asset, { atomic: true });
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `${what}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${what}: not JSON (a JWK set: {"keys":[...]})`);
  }
}

/** The service's published key set: public, so nothing is signed. */
async function fetchKeySet(url: string): Promise<unknown> {
  const response = await fetch(`${url}/.well-known/jwks.json`, { headers: { accept: 'application/json' } });
  if (!response.ok)
    throw new Refusal(
      'receipt.keys_unavailable',
      `${url}/.well-known/jwks.json answered ${response.status}; pass the key set with --jwks <file>`,
    );
  return response.json();
}
