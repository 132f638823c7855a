import { DomainError } from '@townhall/contracts';
import { tiersOf, type EventRow, type TierOffer } from '../projection/event-row.js';
import type { CodeRow } from './code-row.js';

/**
 * What an event sells to an RSVP (docs/product.md "Codes"), and at what price: without a code, its
 * tiers that are not hidden, at their prices; with one, the tiers the code applies to (its
 * `tierIds`, else every tier it may buy: those not hidden and those it unlocks), each at the price
 * the code makes it. The one definition of "which tiers, at which price", for the 402's accepts,
 * the payment's check and a ticket a code makes free.
 */
export function tiersOnSale(event: Pick<EventRow, 'ticketing' | 'capacity'>, code?: CodeRow): TierOffer[] {
  const tiers = tiersOf(event.ticketing, event.capacity);
  if (!code) return tiers.filter((tier) => !tier.hidden);
  const buyable = tiers.filter((tier) => !tier.hidden || code.unlocks_tier_ids.includes(tier.tierId));
  return buyable
    .filter((tier) => code.tier_ids === null || code.tier_ids.includes(tier.tierId))
    .map((tier) => ({ ...tier, price: discounted(tier.price, code) }));
}

/**
 * A price (atomic units) after a code: free is 0; a percentage takes that share off, rounded down
 * (the buyer never pays more than the list price less the whole percentage's floor); an amount
 * off never goes below 0.
 */
export function discounted(
  price: string,
  code: Pick<CodeRow, 'free' | 'percent_off' | 'amount_off'>,
): string {
  const list = BigInt(price);
  if (code.free) return '0';
  if (code.percent_off !== null) return (list - (list * BigInt(code.percent_off)) / 100n).toString();
  if (code.amount_off !== null) {
    const off = BigInt(code.amount_off);
    return (off >= list ? 0n : list - off).toString();
  }
  return price;
}

/**
 * The tier an RSVP names, among those on sale: refused as unknown (`validation.failed`) when the
 * event has no such tier or hides it from this RSVP, and as `code.not_for_tier` when the code does
 * not apply to a tier the RSVP could otherwise buy.
 */
export function tierOnSale(
  event: Pick<EventRow, 'ticketing' | 'capacity'>,
  onSale: readonly TierOffer[],
  tierId: string,
  code?: CodeRow,
): TierOffer {
  const tier = onSale.find((offer) => offer.tierId === tierId);
  if (tier) return tier;
  if (code && tiersOnSale(event).some((offer) => offer.tierId === tierId))
    throw new DomainError('code.not_for_tier', `Code ${code.code} does not apply to tier ${tierId}`);
  throw unknownTier(event);
}

/** The refusal of a tier the event does not sell (or hides). */
export function unknownTier(event: Pick<EventRow, 'ticketing' | 'capacity'>): DomainError {
  const tiers = tiersOnSale(event);
  return new DomainError('validation.failed', 'tierId: name one of the event tiers', [
    { field: 'tierId', message: `must be one of ${tiers.map((t) => t.tierId).join(', ')}` },
  ]);
}
