import { GENERAL_TIER, type AccessMode, type EventStatus, type Ticketing } from '@townhall/contracts';

/** What ticketing knows of an event: a row of ticketing.events. */
export interface EventRow {
  event_id: string;
  host_id: string;
  moderators: string[];
  status: EventStatus;
  series_id: string | null;
  starts_at: Date;
  ticketing: Ticketing;
  capacity: number;
  sold: number;
  /** The event version this row is at (events.events.version). */
  version: number;
  /** How long a waitlist offer of a paid seat holds it. */
  offer_minutes: number;
  /** Who may take a ticket: `invite` admits the invited, the host and the moderators only. */
  access: AccessMode;
  /** Whether it takes RSVPs, waitlist joins and approvals now, as ticketing.on_sale (on_sale.sql) says. */
  on_sale: boolean;
}

const EVENT_FIELDS = [
  'event_id',
  'host_id',
  'moderators',
  'status',
  'series_id',
  'starts_at',
  'ticketing',
  'capacity',
  'sold',
  'version',
  'offer_minutes',
  'access',
];

/** The columns of an EventRow, of `ticketing.events` as `alias` when the query has other tables. */
export function eventColumns(alias?: string): string {
  const of = alias === undefined ? '' : `${alias}.`;
  return [...EVENT_FIELDS.map((field) => `${of}${field}`), `ticketing.on_sale(${of}status) AS on_sale`].join(
    ', ',
  );
}

export const EVENT_COLUMNS = eventColumns();

export interface TierOffer {
  tierId: string;
  name: string;
  /** Integer string of atomic units; "0" when free. */
  price: string;
  capacity: number;
  /** Not offered unless a code unlocks it (docs/product.md "Codes"). */
  hidden: boolean;
}

/** The tiers an event sells: one implicit `general` tier unless it is tiered. */
export function tiersOf(ticketing: Ticketing, capacity: number): TierOffer[] {
  switch (ticketing.mode) {
    case 'free':
      return [{ tierId: GENERAL_TIER, name: 'General admission', price: '0', capacity, hidden: false }];
    case 'single':
      return [
        { tierId: GENERAL_TIER, name: 'General admission', price: ticketing.price, capacity, hidden: false },
      ];
    case 'tiered':
      return ticketing.tiers.map((tier) => ({
        tierId: tier.id,
        name: tier.name,
        price: tier.price,
        capacity: tier.capacity,
        hidden: tier.hidden ?? false,
      }));
  }
}

export function assetOf(ticketing: Ticketing): string | null {
  return ticketing.mode === 'free' ? null : ticketing.asset;
}
