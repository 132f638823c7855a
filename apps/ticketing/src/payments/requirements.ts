import { DEFAULT_ASSET } from '@townhall/contracts';
import type { PaymentRequirements } from '@townhall/x402';
import { assetOf, type EventRow, type TierOffer } from '../projection/event-row.js';
import type { TicketingSettings } from '../settings.js';

/** The resource a payment for one tier pays for: `<audience>/events/<id>/rsvp?tier=<tierId>` (docs/protocol/payments.md "The 402 answer"). */
export function resourceOf(settings: TicketingSettings, eventId: string, tierId: string): string {
  return `${settings.publicBaseUrl}/events/${eventId}/rsvp?tier=${encodeURIComponent(tierId)}`;
}

/** The tier a payment names in its resource, if any. */
export function tierOfResource(resource: string): string | undefined {
  const match = /[?&]tier=([^&]+)$/.exec(resource);
  return match ? decodeURIComponent(match[1]!) : undefined;
}

/**
 * The memo a Solana payment for one tier must carry: the transfer is otherwise the same for every
 * event a host sells at one price, so this is what binds a payment to its event and tier. At most
 * 9 + 36 + 1 + 32 bytes, well within the 256 an x402 memo may hold.
 */
export function memoOf(eventId: string, tierId: string): string {
  return `townhall:${eventId}:${tierId}`;
}

/**
 * What this server accepts for an event: one entry per tier given (those on sale to this RSVP that
 * still have a seat, at the price it pays: codes/pricing.ts), payable to the host, in the event's
 * asset; `code`, the host's code those prices come from, rides in `extra`. On Solana the asset is
 * the configured mint (the event's `USDC`), the facilitator's fee payer rides in `extra`
 * (`chain.feePayer`), and so does the memo that binds the transfer to the event and tier.
 */
export function requirementsFor(
  settings: TicketingSettings,
  event: EventRow,
  tiers: readonly TierOffer[],
  chain?: { feePayer: string },
  code?: string,
): PaymentRequirements[] {
  const asset = assetOf(event.ticketing);
  if (asset === null) return [];
  return tiers.map((tier) => ({
    scheme: 'exact' as const,
    network: settings.network,
    maxAmountRequired: tier.price,
    asset: settings.asset ?? asset,
    payTo: event.host_id,
    resource: resourceOf(settings, event.event_id, tier.tierId),
    description: `Ticket (${tier.name}) for event ${event.event_id}`,
    mimeType: 'application/json',
    maxTimeoutSeconds: settings.paymentTimeoutSeconds,
    extra: {
      eventId: event.event_id,
      tierId: tier.tierId,
      ...(code === undefined ? {} : { code }),
      ...(chain ? { feePayer: chain.feePayer, memo: memoOf(event.event_id, tier.tierId) } : {}),
    },
  }));
}

/**
 * Whether this deployment can sell the event: on a chain the one asset it takes is X402_ASSET,
 * which an event names as `USDC` (the default) or by its mint; another asset has no mint here.
 */
export function sellsAssetOf(settings: TicketingSettings, event: EventRow): boolean {
  const asset = assetOf(event.ticketing);
  return (
    asset === null || settings.asset === undefined || asset === DEFAULT_ASSET || asset === settings.asset
  );
}
