import type { PaymentRequirements } from '@townhall/x402';
import { assetOf, tiersOf, type EventRow } from '../projection/event-row.js';
import type { TicketingSettings } from '../tokens.js';

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
 * What this server accepts for an event: one entry per paid tier that still has a seat
 * (`available` lists those), payable to the host, in the event's asset.
 */
export function requirementsFor(
  settings: TicketingSettings,
  event: EventRow,
  available: ReadonlySet<string>,
): PaymentRequirements[] {
  const asset = assetOf(event.ticketing);
  if (asset === null) return [];
  return tiersOf(event.ticketing, event.capacity)
    .filter((tier) => available.has(tier.tierId))
    .map((tier) => ({
      scheme: 'exact' as const,
      network: settings.network,
      maxAmountRequired: tier.price,
      asset,
      payTo: event.host_id,
      resource: resourceOf(settings, event.event_id, tier.tierId),
      description: `Ticket (${tier.name}) for event ${event.event_id}`,
      mimeType: 'application/json',
      maxTimeoutSeconds: settings.paymentTimeoutSeconds,
      extra: { eventId: event.event_id, tierId: tier.tierId },
    }));
}
