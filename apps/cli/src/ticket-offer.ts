import { formatAmount, type PaymentRequirements } from '@townhall/x402';
import { Refusal, UsageError } from './failure.js';

/** The 402's `accepts` entries (one per tier with a seat left), whatever shape the problem body had. */
export function offersOf(problem: Record<string, unknown>): PaymentRequirements[] {
  const accepts = problem['accepts'];
  return Array.isArray(accepts) ? (accepts as PaymentRequirements[]) : [];
}

/** The offer to pay: the named tier's, or the only one. Several tiers and no `--tier` is a usage error. */
export function chooseOffer(offers: PaymentRequirements[], tierId: string | undefined): PaymentRequirements {
  const describe = (offer: PaymentRequirements) =>
    `${offer.extra.tierId} at ${formatAmount(offer.maxAmountRequired, offer.asset, { atomic: true })}`;
  if (tierId !== undefined) {
    const offer = offers.find((entry) => entry.extra.tierId === tierId);
    if (offer) return offer;
    throw new Refusal(
      'capacity.sold_out',
      offers.length > 0
        ? `no seat to buy in tier ${tierId}; on sale: ${offers.map(describe).join(', ')}`
        : `no seat to buy in tier ${tierId}`,
    );
  }
  if (offers.length === 0) throw new Refusal('capacity.sold_out', 'no seat is left in any tier');
  if (offers.length > 1)
    throw new UsageError(`choose a tier with --tier: ${offers.map(describe).join(', ')}`);
  return offers[0]!;
}

/** Refuses to pay more than the buyer allowed; amounts are integer strings, compared as BigInt. */
export function checkMaxPrice(offer: PaymentRequirements, maxPrice: string): void {
  if (BigInt(offer.maxAmountRequired) > BigInt(maxPrice))
    throw new Refusal(
      'payment.above_max_price',
      `a ticket in tier ${offer.extra.tierId} costs ${formatAmount(offer.maxAmountRequired, offer.asset, { atomic: true })}, more than --max-price ${maxPrice}; nothing was paid`,
    );
}
