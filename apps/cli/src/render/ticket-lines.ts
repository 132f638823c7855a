// Who comes and what they pay: tickets, waitlist entries, invites, requests to come, codes, the ledger.
import type {
  AccessRequestView,
  BalanceView,
  CodeView,
  InvitesAdded,
  InviteView,
  LedgerEntryView,
  TicketView,
  WaitlistEntryView,
} from '@townhall/contracts';
import { formatAmount } from '@townhall/x402';
import { formatInstant } from '../when.js';
import { table } from './table.js';

/** What a ticket cost: `free`, or `0.00075 USDC` (with `atomic`, `0.00075 USDC (750)`). */
export function ticketPrice(ticket: TicketView, options: { atomic?: boolean } = {}): string {
  if (ticket.price === '0') return 'free';
  return ticket.asset === null ? ticket.price : formatAmount(ticket.price, ticket.asset, options);
}

/**
 * `ticket t1  active  tier general  0.00075 USDC (750)  event e1`, and `  code SPRING25` when bought
 * with one.
 */
export function ticketLine(ticket: TicketView): string {
  const price = ticketPrice(ticket, { atomic: true });
  const code = ticket.code ? `  code ${ticket.code}` : '';
  return `ticket ${ticket.id}  ${ticket.status}  tier ${ticket.tierId}  ${price}  event ${ticket.eventId}${code}`;
}

/**
 * Tickets as a table: with the event of each (`tickets mine`) or its holder (`tickets attendees`);
 * with a CODE column when a ticket was bought with a host's code (its PRICE is what was paid).
 */
export function ticketTable(tickets: TicketView[], show: 'event' | 'holder'): string[] {
  if (tickets.length === 0) return ['no tickets'];
  const codes = tickets.some((ticket) => ticket.code);
  return table(
    tickets.map((ticket) => [
      ticket.id,
      ticket.status,
      ticket.tierId,
      ticketPrice(ticket),
      ...(codes ? [ticket.code ?? '-'] : []),
      formatInstant(ticket.createdAt),
      show === 'event' ? ticket.eventId : ticket.holderId,
    ]),
    [
      'TICKET',
      'STATUS',
      'TIER',
      'PRICE',
      ...(codes ? ['CODE'] : []),
      'SINCE',
      show === 'event' ? 'EVENT' : 'HOLDER',
    ],
  );
}

/** Where a waitlist entry stands: `waiting (#3)`, `offered until 2027-03-04 19:05 UTC`, `accepted`. */
export function waitlistStatus(entry: WaitlistEntryView): string {
  if (entry.status === 'waiting') return entry.position === null ? 'waiting' : `waiting (#${entry.position})`;
  if (entry.status === 'offered') return `offered until ${formatInstant(entry.offerExpiresAt)}`;
  return entry.status;
}

export function waitlistLine(entry: WaitlistEntryView): string {
  return `waitlist ${entry.id}  ${waitlistStatus(entry)}  tier ${entry.tierId}  event ${entry.eventId}`;
}

export function waitlistTable(entries: WaitlistEntryView[]): string[] {
  if (entries.length === 0) return ['not in any waitlist'];
  return table(
    entries.map((entry) => [
      entry.id,
      waitlistStatus(entry),
      entry.tierId,
      formatInstant(entry.createdAt),
      entry.eventId,
    ]),
    ['ENTRY', 'STATUS', 'TIER', 'SINCE', 'EVENT'],
  );
}

/** `agent-b invited to e1 by host (2027-03-04 19:05 UTC)`. */
export function inviteLine(invite: InviteView): string {
  return `${invite.agentId} invited to ${invite.eventId} by ${invite.invitedBy} (${formatInstant(invite.invitedAt)})`;
}

export function inviteTable(invites: InviteView[]): string[] {
  if (invites.length === 0) return ['nobody is invited'];
  return table(
    invites.map((invite) => [invite.agentId, invite.invitedBy, formatInstant(invite.invitedAt)]),
    ['AGENT', 'INVITED BY', 'SINCE'],
  );
}

/** `invites add`: how many the call invited, then every agent it named. */
export function invitesAddedLines(result: InvitesAdded): string[] {
  const before = result.invites.length - result.added;
  return [
    `${result.added} invited now${before > 0 ? `, ${before} invited before` : ''}`,
    ...inviteTable(result.invites),
  ];
}

/**
 * `agent-b asked to come to e1 (2027-03-04 19:05 UTC): approved by host (2027-03-04 19:10 UTC),
 * seat held until 2027-03-04 19:25 UTC`; the tier when it names one.
 */
export function requestLine(request: AccessRequestView): string {
  const tier = request.tierId === null ? '' : `, tier ${request.tierId}`;
  const asked = `${request.agentId} asked to come to ${request.eventId}${tier} (${formatInstant(request.requestedAt)})`;
  if (request.status === 'requested') return `${asked}: not decided yet`;
  const when = request.decidedAt === null ? '' : ` (${formatInstant(request.decidedAt)})`;
  const hold =
    request.status === 'approved' && request.holdExpiresAt !== null
      ? `, seat held until ${formatInstant(request.holdExpiresAt)}`
      : '';
  return `${asked}: ${request.status} by ${request.decidedBy ?? '-'}${when}${hold}`;
}

export function requestTable(requests: AccessRequestView[]): string[] {
  if (requests.length === 0) return ['nobody has asked to come'];
  return table(
    requests.map((request) => [
      request.agentId,
      request.status,
      request.tierId ?? '-',
      formatInstant(request.requestedAt),
      request.decidedBy ?? '-',
      request.holdExpiresAt === null ? '-' : formatInstant(request.holdExpiresAt),
    ]),
    ['AGENT', 'STATUS', 'TIER', 'ASKED', 'DECIDED BY', 'SEAT HELD UNTIL'],
  );
}

/**
 * An RSVP answered with the agent's request to come (an event that needs approval): where it
 * stands and what to do next. Nothing was charged.
 */
export function rsvpRequestLines(request: AccessRequestView): string[] {
  if (request.status === 'approved')
    return [
      request.holdExpiresAt === null
        ? 'approved: rsvp again for your ticket'
        : `approved: rsvp again to pay until ${formatInstant(request.holdExpiresAt)} (your seat is held until then)`,
      requestLine(request),
    ];
  if (request.status === 'declined') return ['the host declined your request to come', requestLine(request)];
  return [
    "request sent: waiting for the host's approval (nothing was charged; rsvp again once approved)",
    requestLine(request),
  ];
}

/**
 * What a code takes off: `25% off`, `0.0005 USDC off` (its atomic units are the event's asset's, so
 * without the asset: `500 atomic units off`), `free`, or `-` (it only unlocks tiers).
 */
export function codeDiscount(code: CodeView, asset?: string, options: { atomic?: boolean } = {}): string {
  if (code.free) return 'free';
  if (code.percentOff !== null) return `${code.percentOff}% off`;
  if (code.amountOff !== null)
    return `${asset === undefined ? `${code.amountOff} atomic units` : formatAmount(code.amountOff, asset, options)} off`;
  return '-';
}

/** `2/5` tickets carry it of at most 5; `2/unlimited` without a limit. */
function codeUses(code: CodeView): string {
  return `${code.uses}/${code.maxUses ?? 'unlimited'}`;
}

/**
 * `code SPRING25 for e1: 25% off, tiers general, 2/5 used, expires 2027-03-04 19:00 UTC`; the
 * hidden tiers it unlocks when it does.
 */
export function codeLine(code: CodeView, asset?: string): string {
  const discount = codeDiscount(code, asset, { atomic: true });
  return [
    `code ${code.code} for ${code.eventId}: ${discount === '-' ? 'no discount' : discount}`,
    `tiers ${code.tierIds === null ? 'all it may buy' : code.tierIds.join(',')}`,
    ...(code.unlocksTierIds.length > 0 ? [`unlocks ${code.unlocksTierIds.join(',')}`] : []),
    `${codeUses(code)} used`,
    code.expiresAt === null ? 'never expires' : `expires ${formatInstant(code.expiresAt)}`,
  ].join(', ');
}

export function codeTable(codes: CodeView[], asset?: string): string[] {
  if (codes.length === 0) return ['no codes'];
  return table(
    codes.map((code) => [
      code.code,
      codeDiscount(code, asset),
      codeUses(code),
      code.tierIds === null ? 'all' : code.tierIds.join(','),
      code.unlocksTierIds.length === 0 ? '-' : code.unlocksTierIds.join(','),
      code.expiresAt === null ? 'never' : formatInstant(code.expiresAt),
    ]),
    ['CODE', 'DISCOUNT', 'USES', 'TIERS', 'UNLOCKS', 'EXPIRES'],
  );
}

/** Ledger entries; with a CODE column when a ticket's payment among them was bought with a host's code. */
export function ledgerTable(entries: LedgerEntryView[]): string[] {
  if (entries.length === 0) return ['no ledger entries'];
  const codes = entries.some((entry) => entry.code);
  return table(
    entries.map((entry) => [
      formatInstant(entry.createdAt),
      entry.type,
      // Money in with its sign as well, so a column of them reads as in and out.
      `${entry.amount.startsWith('-') ? '' : '+'}${formatAmount(entry.amount, entry.asset)}`,
      ...(codes ? [entry.code ?? '-'] : []),
      entry.eventId ? `event ${entry.eventId}` : '',
      entry.id,
    ]),
    ['WHEN', 'TYPE', 'AMOUNT', ...(codes ? ['CODE'] : []), 'EVENT', 'ENTRY'],
  );
}

export function balanceLines(balance: BalanceView): string[] {
  if (balance.balances.length === 0) return ['no balance (0)'];
  return balance.balances.map((entry) => formatAmount(entry.amount, entry.asset, { atomic: true }));
}
