import type { Ticketing } from '@townhall/contracts';
import { formatAmount } from '@townhall/x402';

/*
 * Prices as a person reads them (`0.0025 USDC`, not the API's 2500 atomic units), through the
 * formatter the CLI uses too. Not in page-text.ts: the browser script never shows a price, and its
 * bundle takes page-text.ts whole.
 */

/** One tier's price (`general` for free and single-price events): `0.0025 USDC`; null when free. */
export function tierPrice(ticketing: Ticketing, tierId: string): string | null {
  if (ticketing.mode === 'free') return null;
  if (ticketing.mode === 'single') return formatAmount(ticketing.price, ticketing.asset);
  const tier = ticketing.tiers.find((one) => one.id === tierId);
  return tier ? formatAmount(tier.price, ticketing.asset) : null;
}

/**
 * What a ticket costs, in a list of events: `Free`, `0.0025 USDC`, or for tiers the lowest price of
 * those offered, `from 0.001 USDC` (a hidden tier is sold only with a code, so it is not offered).
 */
export function admissionPrice(ticketing: Ticketing): string {
  if (ticketing.mode === 'free') return 'Free';
  if (ticketing.mode === 'single') return formatAmount(ticketing.price, ticketing.asset);
  const prices = ticketing.tiers.filter((tier) => tier.hidden !== true).map((tier) => BigInt(tier.price));
  if (prices.length === 0) return 'By code only';
  const lowest = prices.reduce((low, price) => (price < low ? price : low));
  const amount = formatAmount(lowest, ticketing.asset);
  return prices.length === 1 ? amount : `from ${amount}`;
}
