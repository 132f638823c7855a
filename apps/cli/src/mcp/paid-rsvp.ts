import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { TownhallError, type AgentClient, type PaymentRequirements, type TicketView } from '@townhall/sdk';
import { chooseOffer, offersOf } from '../ticket-offer.js';
import type { Budget } from './budget.js';
import { answer, refusal } from './tool-results.js';

export interface RsvpArguments {
  eventId: string;
  tierId?: string | undefined;
  maxPrice?: string | undefined;
}

/** What a tool call runs with: the session's agent, its budget and its MCP server (to ask the person). */
export interface PayingSession {
  agent: AgentClient;
  budget: Budget;
  server: McpServer;
  /** Solana JSON-RPC, for an event sold in USDC on chain (default: the cluster's public endpoint). */
  rpcUrl?: string | undefined;
}

/**
 * `rsvp`: a free ticket at once; the ticket already held, with no charge; a paid one only within
 * both `maxPrice` and what is left of the session's budget, the price reserved before the payment
 * is signed. Above the budget, a client that supports elicitation asks the person to approve the
 * exact amount, and the budget grows by that much only if they accept; otherwise `payment.budget`,
 * and nothing is charged. The offer is chosen as `townhall rsvp` chooses it (ticket-offer.ts).
 */
export async function paidRsvp(session: PayingSession, args: RsvpArguments): Promise<CallToolResult> {
  const { agent, budget } = session;
  let offers: PaymentRequirements[];
  try {
    const held = await agent.tickets.rsvp(args.eventId, args.tierId ? { tierId: args.tierId } : {});
    return ticketAnswer(held.ticket, 0n, budget, held.created ? 'Your ticket (free).' : ALREADY_HELD);
  } catch (error) {
    if (!(error instanceof TownhallError) || error.code !== 'payment.required') throw error;
    offers = offersOf(error.problem);
  }
  const offer = chooseOffer(offers, args.tierId);
  const price = BigInt(offer.maxAmountRequired);
  const refused = (why: string, left: bigint) =>
    refusal(
      'payment.budget',
      `A ticket costs ${price} atomic units of ${offer.asset}; ${why} Nothing was charged.`,
      {
        price: offer.maxAmountRequired,
        asset: offer.asset,
        network: offer.network,
        tierId: offer.extra.tierId,
        ...(args.maxPrice === undefined ? {} : { maxPrice: args.maxPrice }),
        budgetLeft: String(left),
      },
    );
  if (args.maxPrice !== undefined && price > BigInt(args.maxPrice))
    return refused(`that is more than maxPrice ${args.maxPrice}.`, budget.remaining);
  if (!budget.reserve(price)) {
    const left = budget.remaining;
    // Approved by the person: the budget grows by exactly this payment, which then spends it.
    if (!(await approved(session, price, offer, left))) {
      return refused(
        `this session may spend ${left} more. The person running this MCP server can raise it (townhall mcp --budget, in atomic units).`,
        left,
      );
    }
    budget.raise(price);
    budget.reserve(price);
  }
  let paid;
  try {
    paid = await agent.tickets.rsvp(args.eventId, {
      tierId: offer.extra.tierId,
      maxPrice: offer.maxAmountRequired,
      asset: offer.asset,
      network: offer.network,
      ...(session.rpcUrl ? { rpcUrl: session.rpcUrl } : {}),
    });
  } catch (error) {
    // Refused (sold out meanwhile, a payment error): nothing was charged.
    budget.release(price);
    throw error;
  }
  if (!paid.created) {
    // Held already (a concurrent RSVP of ours won): nothing charged, the reservation goes back.
    budget.release(price);
    return ticketAnswer(paid.ticket, 0n, budget, ALREADY_HELD);
  }
  const how = paid.payment
    ? `paid ${price} atomic units of ${offer.asset} on ${paid.payment.network} (transaction ${paid.payment.transaction})`
    : `payment of ${price} atomic units sent; the ticket is pending until it settles`;
  return ticketAnswer(paid.ticket, price, budget, `Your ticket: ${how}.`, paid.payment ?? undefined);
}

/** How long a person has to approve a payment beyond the budget. */
const APPROVAL_WAIT_MS = 10 * 60_000;

const ALREADY_HELD = 'You already hold this ticket; nothing was charged.';

function ticketAnswer(
  ticket: TicketView,
  charged: bigint,
  budget: Budget,
  text: string,
  payment?: { transaction: string; network: string },
): CallToolResult {
  return answer(
    {
      ticket,
      charged: String(charged),
      budgetLeft: String(budget.remaining),
      ...(payment ? { transaction: payment.transaction, network: payment.network } : {}),
    },
    `${text} Ticket ${ticket.id} (${ticket.status}); budget left ${budget.remaining}.`,
  );
}

/** Asks the person to approve this one payment, where the client supports MCP elicitation. */
async function approved(
  session: PayingSession,
  price: bigint,
  offer: PaymentRequirements,
  left: bigint,
): Promise<boolean> {
  const low = session.server.server;
  if (!low.getClientCapabilities()?.elicitation?.form) return false;
  try {
    const result = await low.elicitInput(
      {
        mode: 'form',
        message:
          `Pay ${price} atomic units of ${offer.asset} (on ${offer.network}) to ${offer.payTo} for a ticket ` +
          `(tier ${offer.extra.tierId}, event ${offer.extra.eventId})? This session's budget has ${left} left; ` +
          'approving raises it by exactly this payment.',
        requestedSchema: {
          type: 'object',
          properties: {
            approve: {
              type: 'boolean',
              title: 'Approve this payment',
              description: `${price} atomic units of ${offer.asset}`,
            },
          },
          required: ['approve'],
        },
      },
      // A person answers: give them time, not the 60 s a program gets.
      { timeout: APPROVAL_WAIT_MS },
    );
    return result.action === 'accept' && result.content?.['approve'] === true;
  } catch {
    // No answer in time, or the client failed to ask: not approved.
    return false;
  }
}
