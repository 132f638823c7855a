import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@townhall/contracts';
import { SETTINGS } from '@townhall/platform/service';
import type { TicketingSettings } from '../settings.js';
import { soldOut } from './sale-refusals.js';

/** One tier's purchases in flight in this process, and those waiting for them. */
interface Gate {
  /** Seats left when the gate opened, less the seats its purchases took since. */
  seatsLeft: number;
  inFlight: number;
  waiting: Array<{ admit: () => void; refuse: (error: Error) => void }>;
}

/**
 * Admission to a tier's sale in this process: at most as many purchases in flight as the tier has
 * seats left (issue [17] item 0). In a sellout race the buyers beyond the last seats wait here, in
 * memory, for the outcome of those in flight, instead of all verifying their payments, writing
 * their ledger entries and queueing for the hot row only to be rolled back; once the purchases in
 * flight took the last seats, everyone waiting is refused at once (409 `capacity.sold_out`), and
 * if one of them failed (an insufficient balance), the next in line goes.
 *
 * It decides nothing about seats: ticketing.take_seat stays the final word, so other replicas,
 * released seats and capacity changes only make this process admit a purchase that the database
 * then refuses, or refuse one a moment before a seat came back. A gate lives while its tier has a
 * purchase in flight here, so the next buyer after a lull starts again from what the database says.
 */
@Injectable()
export class SeatGate {
  private readonly gates = new Map<string, Gate>();

  constructor(@Inject(SETTINGS) private readonly settings: Pick<TicketingSettings, 'admissionWaitMs'>) {}

  /**
   * Runs `purchase` once a seat may be left for it. `seatsLeft` is what the caller read of the
   * tier (used only if no purchase of the tier is in flight here); `took(result)` says whether the
   * purchase took a seat.
   */
  async through<T>(
    eventId: string,
    tierId: string,
    seatsLeft: number,
    purchase: () => Promise<T>,
    took: (result: T) => boolean,
  ): Promise<T> {
    const key = `${eventId}\n${tierId}`;
    let gate = this.gates.get(key);
    if (!gate) {
      gate = { seatsLeft, inFlight: 0, waiting: [] };
      this.gates.set(key, gate);
    }
    // A waiter is counted in flight by pass() when it is admitted, so that nobody overtakes it.
    if (gate.inFlight < gate.seatsLeft) gate.inFlight++;
    else await this.wait(gate, tierId);
    let tookSeat = false;
    try {
      const result = await purchase();
      tookSeat = took(result);
      return result;
    } catch (error) {
      // The database says the tier is sold out (another replica, a capacity change): so is the gate.
      if (error instanceof DomainError && error.code === 'capacity.sold_out') gate.seatsLeft = 0;
      throw error;
    } finally {
      gate.inFlight--;
      if (tookSeat) gate.seatsLeft--;
      this.pass(key, gate, tierId);
    }
  }

  /**
   * Runs `purchase` through the tier's gate only if its sale is busy here and it admits at once
   * (purchases of the tier in flight, fewer than the seats left, nobody waiting): no read of the
   * seats left is needed then. Otherwise undefined, and nothing ran.
   */
  admitBusy<T>(
    eventId: string,
    tierId: string,
    purchase: () => Promise<T>,
    took: (result: T) => boolean,
  ): Promise<T> | undefined {
    const gate = this.gates.get(`${eventId}\n${tierId}`);
    if (!gate || gate.inFlight >= gate.seatsLeft || gate.waiting.length > 0) return undefined;
    // through() admits it at once, in this same synchronous step.
    return this.through(eventId, tierId, gate.seatsLeft, purchase, took);
  }

  private wait(gate: Gate, tierId: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        admit: () => {
          clearTimeout(timer);
          resolve();
        },
        refuse: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      // The purchases in flight hang (the database is slow or away): shed rather than queue on.
      const timer = setTimeout(() => {
        gate.waiting.splice(gate.waiting.indexOf(waiter), 1);
        reject(
          new DomainError(
            'service.overloaded',
            `Purchases of tier ${tierId} are still in flight for its last seats; nothing was charged. Retry after Retry-After.`,
          ),
        );
      }, this.settings.admissionWaitMs);
      gate.waiting.push(waiter);
    });
  }

  /** After a purchase ended: the next in line while seats may be left, or everyone refused once none is. */
  private pass(key: string, gate: Gate, tierId: string): void {
    while (gate.waiting.length > 0 && gate.inFlight < gate.seatsLeft) {
      gate.inFlight++;
      gate.waiting.shift()!.admit();
    }
    // Nothing in flight and still a line: no seat is left for it.
    if (gate.inFlight === 0 && gate.waiting.length > 0) {
      for (const waiter of gate.waiting.splice(0)) waiter.refuse(soldOut(tierId));
    }
    if (gate.inFlight === 0 && gate.waiting.length === 0) this.gates.delete(key);
  }
}
