import type { SignedReceiptView, TicketStatus, TicketView } from '@townhall/contracts';

export interface TicketRow {
  id: string;
  event_id: string;
  tier_id: string;
  holder_id: string;
  status: TicketStatus;
  price: string;
  asset: string | null;
  network: string | null;
  transaction: string | null;
  code: string | null;
  created_at: Date;
  cancelled_at: Date | null;
  /** The x402 receipt signed when a paid ticket was issued (jsonb); absent where not read. */
  receipt?: SignedReceiptView | null;
}

export const TICKET_COLUMNS =
  'id, event_id, tier_id, holder_id, status, price::text AS price, asset, network, transaction, code, created_at, cancelled_at, receipt';

export function toTicket(row: TicketRow): TicketView {
  return {
    id: row.id,
    eventId: row.event_id,
    tierId: row.tier_id,
    holderId: row.holder_id,
    status: row.status,
    price: row.price,
    asset: row.asset,
    network: row.network,
    transaction: row.transaction,
    code: row.code,
    createdAt: row.created_at.toISOString(),
    cancelledAt: row.cancelled_at ? row.cancelled_at.toISOString() : null,
    ...(row.receipt ? { receipt: row.receipt } : {}),
  };
}
