/**
 * Whether Townhall holds this agent's ticket for an event: true (pending or active), false (it
 * answered `ticket.not_found`); it throws when that cannot be told (Townhall did not answer).
 */
export type TicketLookup = (eventId: string) => Promise<boolean>;

/** What a lookup of unconfirmed payments decided, one line each (for the server's diagnostics). */
export interface Confirmation {
  eventId: string;
  amount: bigint;
  outcome: 'spent' | 'released';
}

type ReservationState = 'reserved' | 'unconfirmed' | 'spent' | 'released';

/** What a reservation may do to its budget. */
interface BudgetBook {
  giveBack(amount: bigint): void;
  track(reservation: Reservation): void;
  untrack(reservation: Reservation): void;
  now(): number;
}

/**
 * One purchase's claim on the budget: taken before the payment is signed, then spent (a ticket was
 * bought), released (nothing was charged) or, when Townhall's answer to the payment was lost,
 * unconfirmed until a lookup of the ticket says which. A reservation the person approved
 * (`Budget.approve`) is funded by that approval, not by the budget: whatever becomes of it, the
 * budget stays where it was, so an approval never outlives the one purchase it was asked for.
 */
export class Reservation {
  private current: ReservationState = 'reserved';
  private lookedUpFor: { eventId: string; releasableAt: number } | undefined;

  /** Made by `Budget.reserve` and `Budget.approve` only. */
  constructor(
    private readonly book: BudgetBook,
    readonly amount: bigint,
    /** Paid by the person's approval of this one payment, not by the budget. */
    readonly approved: boolean,
  ) {}

  get state(): ReservationState {
    return this.current;
  }

  /** The event whose ticket decides an unconfirmed reservation. */
  get eventId(): string | undefined {
    return this.lookedUpFor?.eventId;
  }

  /** A ticket was bought with it. */
  spend(): void {
    this.leave('reserved', 'spent');
  }

  /** Nothing was charged: the budget gets it back (an approval lapses). */
  release(): void {
    this.leave('reserved', 'released');
    if (!this.approved) this.book.giveBack(this.amount);
  }

  /**
   * The payment was sent and its answer lost: it may have been taken. It stays reserved until a
   * lookup finds the ticket (spent) or finds none at or after `releasableAt`, the moment from which
   * the signed payment can no longer be taken (a lookup before then may race the payment itself).
   */
  awaitTicket(eventId: string, releasableAt: number): void {
    this.leave('reserved', 'unconfirmed');
    this.lookedUpFor = { eventId, releasableAt };
    this.book.track(this);
  }

  /** A lookup found the ticket: the payment was taken. */
  ticketFound(): void {
    if (this.current !== 'unconfirmed') return;
    this.current = 'spent';
    this.book.untrack(this);
  }

  /** A lookup found no ticket: given back once the payment can no longer be taken, else kept. */
  ticketNotFound(): void {
    if (this.current !== 'unconfirmed' || this.book.now() < this.lookedUpFor!.releasableAt) return;
    this.current = 'released';
    this.book.untrack(this);
    if (!this.approved) this.book.giveBack(this.amount);
  }

  private leave(from: ReservationState, to: ReservationState): void {
    if (this.current !== from) throw new Error(`a reservation ${this.current} cannot be ${to}`);
    this.current = to;
  }
}

/**
 * What an MCP session may still spend on paid RSVPs (`townhall mcp --budget`), in atomic units of
 * one asset: `--asset`, or else the asset of the first payment it reserves. Amounts of different
 * assets do not add up (1 unit of one mint is not 1 unit of another), so an offer in any other
 * asset is refused. A payment reserves its price before it is signed, so two paid RSVPs at once
 * can never spend more than the budget together; it is given back only when nothing was charged.
 */
export class Budget {
  private left: bigint;
  private bound: string | undefined;
  private readonly unconfirmedOnes = new Set<Reservation>();
  private confirming: Promise<Confirmation[]> | undefined;
  private readonly book: BudgetBook;

  constructor(amount: bigint, asset?: string, now: () => number = Date.now) {
    if (amount < 0n) throw new RangeError('a budget is not negative');
    this.left = amount;
    this.bound = asset;
    this.book = {
      giveBack: (given) => {
        this.left += given;
      },
      track: (reservation) => {
        this.unconfirmedOnes.add(reservation);
      },
      untrack: (reservation) => {
        this.unconfirmedOnes.delete(reservation);
      },
      now,
    };
  }

  get remaining(): bigint {
    return this.left;
  }

  /** The asset the budget counts in; undefined until `--asset` or the first reserved payment names it. */
  get asset(): string | undefined {
    return this.bound;
  }

  /** Reserved for payments whose outcome Townhall has not confirmed (not part of `remaining`). */
  get unconfirmed(): bigint {
    let total = 0n;
    for (const reservation of this.unconfirmedOnes) if (!reservation.approved) total += reservation.amount;
    return total;
  }

  /** How many payments await a lookup of their ticket (approved ones included). */
  get awaitingTickets(): number {
    return this.unconfirmedOnes.size;
  }

  /** Whether a payment for this event awaits confirmation (paying again could pay twice). */
  awaitsTicket(eventId: string): boolean {
    return [...this.unconfirmedOnes].some((reservation) => reservation.eventId === eventId);
  }

  /** Whether a payment in `asset` may come from this budget. */
  takes(asset: string): boolean {
    return this.bound === undefined || this.bound === asset;
  }

  /** Takes `amount` of `asset` from what is left (the first one taken fixes the asset), or undefined. */
  reserve(amount: bigint, asset: string): Reservation | undefined {
    if (!this.takes(asset)) throw new Error(`the budget is in ${this.bound}, not ${asset}`);
    if (amount > this.left) return undefined;
    this.bind(asset);
    this.left -= amount;
    return new Reservation(this.book, amount, false);
  }

  /** The person approved this one payment (MCP elicitation): it is covered without touching the budget. */
  approve(amount: bigint, asset: string): Reservation {
    this.bind(asset);
    return new Reservation(this.book, amount, true);
  }

  /** Townhall holds the ticket for this event (an RSVP said so): its unconfirmed payments were taken. */
  ticketHeld(eventId: string): void {
    for (const reservation of [...this.unconfirmedOnes])
      if (reservation.eventId === eventId) reservation.ticketFound();
  }

  /**
   * Looks up the ticket of every unconfirmed payment, one lookup per event: found, spent; not
   * found, released once the payment can no longer be taken; a lookup that fails leaves it as it
   * is, for the next call. One confirmation at a time: a call meanwhile shares the running one.
   */
  confirm(lookup: TicketLookup): Promise<Confirmation[]> {
    this.confirming ??= this.lookUp(lookup).finally(() => (this.confirming = undefined));
    return this.confirming;
  }

  private async lookUp(lookup: TicketLookup): Promise<Confirmation[]> {
    const byEvent = new Map<string, Reservation[]>();
    for (const reservation of this.unconfirmedOnes) {
      const eventId = reservation.eventId!;
      byEvent.set(eventId, [...(byEvent.get(eventId) ?? []), reservation]);
    }
    const decided: Confirmation[] = [];
    for (const [eventId, reservations] of byEvent) {
      let held: boolean;
      try {
        held = await lookup(eventId);
      } catch {
        // Townhall could not tell: the payment stays unconfirmed, for the next confirmation.
        continue;
      }
      for (const reservation of reservations) {
        if (held) reservation.ticketFound();
        else reservation.ticketNotFound();
        if (reservation.state === 'spent' || reservation.state === 'released')
          decided.push({ eventId, amount: reservation.amount, outcome: reservation.state });
      }
    }
    return decided;
  }

  private bind(asset: string): void {
    if (!this.takes(asset)) throw new Error(`the budget is in ${this.bound}, not ${asset}`);
    this.bound = asset;
  }
}
