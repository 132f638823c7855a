import type { RefundStatus, RefundView } from '@townhall/contracts';
import { toPaymentRequirementsV2, type PaymentPayload, type PaymentRequirements } from '@townhall/x402';
import type { TicketingSettings } from '../settings.js';

export interface RefundRow {
  id: string;
  seq: string;
  ticket_id: string;
  event_id: string;
  host_id: string;
  holder_id: string;
  amount: string;
  asset: string;
  network: string;
  tier_id: string;
  status: RefundStatus;
  payment: PaymentPayload | null;
  payment_key: string | null;
  transaction: string | null;
  created_at: Date;
  paid_at: Date | null;
}

export const REFUND_COLUMNS = `r.id, r.seq::text AS seq, r.ticket_id, r.event_id, r.host_id, r.holder_id,
  r.amount::text AS amount, r.asset, r.network, t.tier_id, r.status, r.payment, r.payment_key, r.transaction,
  r.created_at, r.paid_at`;
/** Every read of a refund joins its ticket, for the tier. */
export const REFUND_FROM = 'ticketing.refunds r JOIN ticketing.tickets t ON t.id = r.ticket_id';

/** The memo a refund's transfer must carry: what binds a payment to this refund and no other. */
export function refundMemo(refundId: string): string {
  return `townhall:refund:${refundId}`;
}

/**
 * What the host's payment of a refund must be (an x402 `exact` transfer on the refund's network),
 * from the host to the holder, of the ticket's price, with the refund's memo and the facilitator's
 * fee payer.
 */
export function refundRequirements(
  settings: TicketingSettings,
  row: RefundRow,
  feePayer: string,
): PaymentRequirements {
  return {
    scheme: 'exact',
    network: row.network,
    maxAmountRequired: row.amount,
    asset: row.asset,
    payTo: row.holder_id,
    resource: `${settings.publicBaseUrl}/events/${row.event_id}/refunds/${row.id}`,
    description: `Refund of ticket ${row.ticket_id} for event ${row.event_id}`,
    mimeType: 'application/json',
    maxTimeoutSeconds: settings.paymentTimeoutSeconds,
    extra: { eventId: row.event_id, tierId: row.tier_id, feePayer, memo: refundMemo(row.id) },
  };
}

/** A refund as its readers see it; `payment` (what to sign) for the host while it is owed. */
export function toRefund(row: RefundRow, payment?: PaymentRequirements): RefundView {
  const wire = payment ? toPaymentRequirementsV2(payment) : undefined;
  return {
    id: row.id,
    eventId: row.event_id,
    ticketId: row.ticket_id,
    holderId: row.holder_id,
    hostId: row.host_id,
    amount: row.amount,
    asset: row.asset,
    network: row.network,
    status: row.status,
    transaction: row.transaction,
    payment: wire
      ? {
          scheme: 'exact',
          network: wire.network,
          amount: wire.amount,
          asset: wire.asset,
          payTo: wire.payTo,
          maxTimeoutSeconds: wire.maxTimeoutSeconds,
          extra: wire.extra as NonNullable<RefundView['payment']>['extra'],
        }
      : null,
    createdAt: row.created_at.toISOString(),
    paidAt: row.paid_at ? row.paid_at.toISOString() : null,
  };
}
