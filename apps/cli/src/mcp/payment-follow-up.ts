import { TownhallError, type AgentClient } from '@townhall/sdk';
import type { Budget, TicketLookup } from './budget.js';

/** How often payments whose answer was lost are looked up again, while there are any. */
export const FOLLOW_UP_INTERVAL_MS = 30_000;

/** `GET /events/{id}/rsvp` as a TicketLookup: a ticket (pending or active), none, or it throws. */
export function ticketLookup(agent: AgentClient): TicketLookup {
  return async (eventId) => {
    try {
      await agent.tickets.held(eventId);
      return true;
    } catch (error) {
      if (error instanceof TownhallError && error.code === 'ticket.not_found') return false;
      throw error;
    }
  };
}

/**
 * Follows up the payments whose answer was lost until Townhall says whether each was taken: before
 * every paid RSVP (so that one which did not happen is back in the budget before the budget is
 * judged) and every 30 s while any is unconfirmed. One per process, as the budget is.
 */
export class PaymentFollowUp {
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly budget: Budget,
    private readonly lookup: TicketLookup,
    private readonly log: (line: string) => void,
    private readonly intervalMs = FOLLOW_UP_INTERVAL_MS,
  ) {}

  /** Looks up every unconfirmed payment now; never throws (a lookup that fails is tried again later). */
  async confirm(): Promise<void> {
    if (this.budget.awaitingTickets > 0) {
      for (const { eventId, amount, outcome } of await this.budget.confirm(this.lookup)) {
        this.log(
          outcome === 'spent'
            ? `townhall mcp: the payment of ${amount} for event ${eventId} was taken (the ticket is held)`
            : `townhall mcp: the payment of ${amount} for event ${eventId} was not taken (no ticket): given back`,
        );
      }
    }
    this.schedule();
  }

  /** A payment has just become unconfirmed: follow it up. */
  watch(): void {
    this.schedule();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.budget.unconfirmed > 0)
      this.log(
        `townhall mcp: ${this.budget.unconfirmed} atomic units were never confirmed as paid or not: see tickets_mine (townhall tickets mine)`,
      );
  }

  private schedule(): void {
    if (this.closed || this.timer !== undefined || this.budget.awaitingTickets === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.confirm();
    }, this.intervalMs);
    // Following up is no reason to stay alive: the process ends with its client.
    this.timer.unref();
  }
}
