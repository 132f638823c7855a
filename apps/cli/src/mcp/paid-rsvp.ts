import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, RequestId } from '@modelcontextprotocol/sdk/types.js';
import {
  AgentClient,
  TownhallError,
  type AccessRequestView,
  type PaymentRequirements,
  type RsvpResult,
  type TicketView,
} from '@townhall/sdk';
import { formatAmount } from '@townhall/x402';
import { chooseOffer, offersOf } from '../ticket-offer.js';
import type { Budget, Reservation } from './budget.js';
import type { PaymentFollowUp } from './payment-follow-up.js';
import { answer, refusal } from './tool-results.js';

export interface RsvpArguments {
  eventId: string;
  tierId?: string | undefined;
  /** A host's code: the offer is at the price it gives, and that price is what maxPrice and the budget meet. */
  code?: string | undefined;
  maxPrice?: string | undefined;
}

/** What a tool call runs with: the session's agent, its budget and its MCP server (to ask the person). */
export interface PayingSession {
  agent: AgentClient;
  budget: Budget;
  /** Looks up the payments whose answer was lost (shared, as the budget is). */
  followUp: PaymentFollowUp;
  server: McpServer;
  /** `townhall mcp --asset`: the one asset payments are signed in (else the agent's default). */
  asset?: string | undefined;
  /** Solana JSON-RPC, for an event sold in USDC on chain (default: the cluster's public endpoint). */
  rpcUrl?: string | undefined;
}

/** How long a person has to approve a payment beyond the budget. */
const APPROVAL_WAIT_MS = 10 * 60_000;

/**
 * How far Townhall's clock may run behind ours when it judges a payment's validity (the skew its
 * ledger check allows): a payment signed with `maxTimeoutSeconds` may be taken that much longer.
 */
const VALIDITY_SKEW_MS = 30_000;

const ALREADY_HELD = 'You already hold this ticket; nothing was charged.';

/**
 * `rsvp`: a free ticket at once; the ticket already held, with no charge; a paid one only when the
 * model names the most it may cost (`maxPrice`), in the budget's asset, within what is left of the
 * budget (reserved before the payment is signed) or approved by the person for this one payment.
 * Otherwise a refusal, and nothing is signed. The offer is chosen as `townhall rsvp` chooses it.
 * With a host's `code` the offer is at the price the code gives (sent again with the payment), and
 * that is the price maxPrice and the budget meet; a code that makes it free is a ticket at once.
 * An event that needs approval answers an agent not approved yet with its request to come: that
 * is the answer (`request`, no ticket), and nothing is charged.
 */
export async function paidRsvp(
  session: PayingSession,
  args: RsvpArguments,
  requestId?: RequestId,
): Promise<CallToolResult> {
  const { agent, budget } = session;
  const withCode = args.code ? { code: args.code } : {};
  let offers: PaymentRequirements[];
  try {
    const held = await agent.tickets.rsvp(args.eventId, {
      ...(args.tierId ? { tierId: args.tierId } : {}),
      ...withCode,
    });
    if ('request' in held) return requestAnswer(held.request, budget);
    // A payment of ours whose answer was lost did buy it.
    budget.ticketHeld(args.eventId);
    const free = held.ticket.code
      ? `Your ticket (free with code ${held.ticket.code}).`
      : 'Your ticket (free).';
    return ticketAnswer(held.ticket, 0n, budget, held.created ? free : ALREADY_HELD);
  } catch (error) {
    if (!(error instanceof TownhallError) || error.code !== 'payment.required') throw error;
    offers = offersOf(error.problem);
  }
  const offer = chooseOffer(offers, args.tierId);
  const price = BigInt(offer.maxAmountRequired);
  // With a code, the price is the one it gives (the refusal's own `code` is the problem's).
  const cost = `${price} atomic units of ${offer.asset}${args.code ? ` with code ${args.code}` : ''}`;
  const refused = (code: string, why: string) =>
    refusal(code, `A ticket costs ${cost}; ${why} Nothing was charged.`, {
      price: offer.maxAmountRequired,
      asset: offer.asset,
      network: offer.network,
      tierId: offer.extra.tierId,
      ...(args.maxPrice === undefined ? {} : { maxPrice: args.maxPrice }),
      ...budgetState(budget),
    });

  if (args.maxPrice === undefined)
    return refused(
      'payment.budget',
      `a paid rsvp needs maxPrice, the most you agree to pay: pass maxPrice ${price} to pay it.`,
    );
  if (price > BigInt(args.maxPrice))
    return refused('payment.budget', `that is more than maxPrice ${args.maxPrice}.`);
  // Payments whose answer was lost are looked up first: one that did not happen is given back.
  await session.followUp.confirm();
  if (!budget.takes(offer.asset)) return refused('payment.budget_asset', inOtherAsset(budget));
  if (budget.awaitsTicket(args.eventId))
    return refused(
      'payment.unconfirmed',
      'a payment of yours for this event was sent and its answer lost; until Townhall says whether it was taken, paying again could pay twice. tickets_mine shows the ticket once it exists.',
    );

  let reservation = budget.reserve(price, offer.asset);
  if (!reservation) {
    const left = budget.remaining;
    if (!(await approved(session, price, offer, left, requestId)))
      return refused(
        'payment.budget',
        `this session may spend ${left} more. The person running this MCP server can raise it (townhall mcp --budget, in atomic units).`,
      );
    // Another payment may have fixed the budget's asset while the person was deciding.
    if (!budget.takes(offer.asset)) return refused('payment.budget_asset', inOtherAsset(budget));
    reservation = budget.approve(price, offer.asset);
  }
  return pay(session, args, offer, reservation);
}

/** Pays the reserved offer, and settles the reservation by what Townhall answered. */
async function pay(
  session: PayingSession,
  args: RsvpArguments,
  offer: PaymentRequirements,
  reservation: Reservation,
): Promise<CallToolResult> {
  const { agent, budget } = session;
  const price = reservation.amount;
  const sent = paymentWatch();
  // The agent's key, with a fetch that notes when the paying request leaves: an error before
  // that charged nothing, after it the payment may have been taken.
  const payer = new AgentClient({
    baseUrl: agent.baseUrl,
    key: agent.key,
    audience: agent.audience,
    fetch: sent.fetch,
    // The person named the budget's asset: the SDK signs in it (by default it pays in USDC only).
    ...(session.asset === undefined ? {} : { assets: [session.asset] }),
  });
  let paid: RsvpResult;
  try {
    paid = await payer.tickets.rsvp(args.eventId, {
      tierId: offer.extra.tierId,
      ...(args.code ? { code: args.code } : {}),
      maxPrice: offer.maxAmountRequired,
      asset: offer.asset,
      network: offer.network,
      ...(session.rpcUrl ? { rpcUrl: session.rpcUrl } : {}),
    });
  } catch (error) {
    if (sent.at === undefined || isRefusal(error)) {
      // Refused (sold out meanwhile, a payment error), or stopped before paying: nothing was charged.
      reservation.release();
      throw error;
    }
    reservation.awaitTicket(args.eventId, sent.at + offer.maxTimeoutSeconds * 1000 + VALIDITY_SKEW_MS);
    return afterLostAnswer(session, args.eventId, offer, reservation, error);
  }
  if ('request' in paid) {
    // Not admitted after all (the event came to need approval): its request, nothing charged.
    reservation.release();
    return requestAnswer(paid.request, budget);
  }
  if (!paid.created) {
    // Held already (a concurrent RSVP of ours won): nothing charged, the reservation goes back.
    reservation.release();
    return ticketAnswer(paid.ticket, 0n, budget, ALREADY_HELD);
  }
  reservation.spend();
  const how = paid.payment
    ? `paid ${price} atomic units of ${offer.asset} on ${paid.payment.network} (transaction ${paid.payment.transaction})`
    : `payment of ${price} atomic units sent; the ticket is pending until it settles`;
  return ticketAnswer(paid.ticket, price, budget, `Your ticket: ${how}.`, paid.payment ?? undefined);
}

/**
 * The paying request left and no clear answer came back (a timeout, a 5xx, a dropped connection):
 * the ticket is looked up at once. Found, the payment was taken and the ticket is the answer;
 * otherwise the amount stays reserved and the follow-up looks it up again.
 */
async function afterLostAnswer(
  session: PayingSession,
  eventId: string,
  offer: PaymentRequirements,
  reservation: Reservation,
  error: unknown,
): Promise<CallToolResult> {
  const { agent, budget } = session;
  const why = error instanceof TownhallError ? `${error.status} ${error.code}` : reasonOf(error);
  let ticket: TicketView | undefined;
  try {
    ticket = await agent.tickets.held(eventId);
    reservation.ticketFound();
  } catch (lookupError) {
    // Not found is final only once the payment can no longer be taken; any other failure: later.
    if (lookupError instanceof TownhallError && lookupError.code === 'ticket.not_found')
      reservation.ticketNotFound();
  }
  if (ticket)
    return ticketAnswer(
      ticket,
      reservation.amount,
      budget,
      `The answer to the payment was lost (${why}), but Townhall holds your ticket: ${reservation.amount} atomic units of ${offer.asset} were paid.`,
    );
  // The payment's validity ran out before the answer was lost, and no ticket: nothing was taken.
  if (reservation.state === 'released') throw error;
  session.followUp.watch();
  return refusal(
    'payment.unconfirmed',
    `The payment of ${reservation.amount} atomic units of ${offer.asset} was sent, but its answer was lost (${why}): it may have been taken. ` +
      'It counts as spent until Townhall says no ticket was issued (looked up again before the next paid rsvp and every 30 s); tickets_mine shows the ticket if it exists. Do not pay for this event again meanwhile.',
    { price: offer.maxAmountRequired, asset: offer.asset, network: offer.network, ...budgetState(budget) },
  );
}

/** A clear refusal of the payment (a 4xx problem): Townhall answered, and charged nothing. */
function isRefusal(error: unknown): boolean {
  return error instanceof TownhallError && error.status >= 400 && error.status < 500;
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error.cause as { code?: string; message?: string } | undefined) ?? {};
  return [error.message, cause.code ?? cause.message].filter(Boolean).join(': ');
}

/** A fetch that notes when a request carrying a payment (x402 v1 or v2 header) is sent. */
function paymentWatch(): { fetch: typeof fetch; readonly at: number | undefined } {
  let at: number | undefined;
  return {
    fetch: (input, init) => {
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      if (at === undefined && (headers.has('x-payment') || headers.has('payment-signature'))) at = Date.now();
      return fetch(input, init);
    },
    get at() {
      return at;
    },
  };
}

function inOtherAsset(budget: Budget): string {
  return `this session's budget is in ${budget.asset}, and pays in no other asset (townhall mcp --asset chooses it).`;
}

/** The budget as answers and refusals report it. */
function budgetState(budget: Budget): Record<string, string> {
  return {
    budgetLeft: String(budget.remaining),
    ...(budget.asset === undefined ? {} : { budgetAsset: budget.asset }),
    ...(budget.unconfirmed > 0n ? { budgetUnconfirmed: String(budget.unconfirmed) } : {}),
  };
}

function ticketAnswer(
  ticket: TicketView,
  charged: bigint,
  budget: Budget,
  text: string,
  payment?: { transaction: string; network: string },
): CallToolResult {
  const asset = budget.asset === undefined ? '' : ` ${budget.asset}`;
  return answer(
    {
      ticket,
      charged: String(charged),
      ...budgetState(budget),
      ...(payment ? { transaction: payment.transaction, network: payment.network } : {}),
    },
    `${text} Ticket ${ticket.id} (${ticket.status}); budget left ${budget.remaining}${asset}.`,
  );
}

/**
 * The answer of an event that needs approval: the agent's request to come (no ticket, nothing
 * charged), and what to do next.
 */
function requestAnswer(request: AccessRequestView, budget: Budget): CallToolResult {
  const next =
    request.status === 'approved'
      ? request.holdExpiresAt === null
        ? 'Your request was approved: call rsvp again for your ticket.'
        : `Your request was approved: a seat is held for you until ${request.holdExpiresAt}; call rsvp again (with maxPrice) to pay for it before then.`
      : request.status === 'declined'
        ? 'The host declined your request to come.'
        : "This event needs approval: your request to come was sent, and waits for the host's (or a moderator's) decision. Call rsvp again once approved.";
  return answer(
    { request, charged: '0', ...budgetState(budget) },
    `${next} Nothing was charged (request ${request.status}, event ${request.eventId}).`,
  );
}

/** Asks the person to approve this one payment, where the client supports MCP elicitation. */
async function approved(
  session: PayingSession,
  price: bigint,
  offer: PaymentRequirements,
  left: bigint,
  requestId: RequestId | undefined,
): Promise<boolean> {
  const low = session.server.server;
  if (!low.getClientCapabilities()?.elicitation?.form) return false;
  try {
    const result = await low.elicitInput(
      {
        mode: 'form',
        // A person reads this one (the model reads atomic units, as it passes maxPrice in them).
        message:
          `Pay ${formatAmount(price, offer.asset, { atomic: true })} (on ${offer.network}) to ${offer.payTo} for a ticket ` +
          `(tier ${offer.extra.tierId}, event ${offer.extra.eventId})? This session's budget has ${formatAmount(left, offer.asset)} left; ` +
          'approving pays for this ticket only and leaves the budget as it is.',
        requestedSchema: {
          type: 'object',
          properties: {
            approve: {
              type: 'boolean',
              title: 'Approve this payment',
              description: formatAmount(price, offer.asset, { atomic: true }),
            },
          },
          required: ['approve'],
        },
      },
      // A person answers: give them time, not the 60 s a program gets. Asked on the tool call's
      // own stream, so only the client that made the call is asked.
      { timeout: APPROVAL_WAIT_MS, ...(requestId === undefined ? {} : { relatedRequestId: requestId }) },
    );
    return result.action === 'accept' && result.content?.['approve'] === true;
  } catch {
    // No answer in time, or the client failed to ask: not approved.
    return false;
  }
}
