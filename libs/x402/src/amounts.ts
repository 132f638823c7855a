// Amounts as people read them. Every amount Townhall stores, sends and signs is an integer string of
// an asset's atomic units (`2500`), because money must add up exactly and a float cannot hold 2^64;
// a person reads the asset's own units (`0.0025 USDC`). The conversion is string arithmetic on the
// digits, so it is exact for any length.
import { USDC_MINTS } from './solana-clusters.js';

/** How a person counts an asset: its symbol, and how many of its atomic units make one. */
export interface AssetUnits {
  symbol: string;
  /** 10^decimals atomic units are one `symbol`. */
  decimals: number;
}

/** USDC has 6 decimals on the ledger (its asset name `USDC`) and on Solana (Circle's mint of each cluster). */
const USDC: AssetUnits = { symbol: 'USDC', decimals: 6 };

const KNOWN_ASSETS: ReadonlyMap<string, AssetUnits> = new Map([
  ['USDC', USDC],
  ...Object.values(USDC_MINTS).map((mint): [string, AssetUnits] => [mint, USDC]),
]);

/**
 * The units of an asset as Townhall names it (`USDC` on the ledger, a mint's address on Solana);
 * undefined for an asset whose decimals Townhall does not know (a ledger asset is only a name).
 */
export function assetUnits(asset: string): AssetUnits | undefined {
  return KNOWN_ASSETS.get(asset);
}

const ATOMIC = /^(-?)([0-9]+)$/;

/**
 * `2500` atomic units of 6 decimals: `0.0025`. Trailing zeros of the fraction are dropped
 * (`1000000` is `1`), a minus sign is kept (a refund out of a ledger account).
 */
export function decimalAmount(amount: string | bigint, decimals: number): string {
  const match = ATOMIC.exec(String(amount));
  if (!match) throw new RangeError(`not an integer amount of atomic units: ${String(amount)}`);
  const [, sign, given] = match as unknown as [string, string, string];
  const digits = given.replace(/^0+(?=.)/, '').padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  const zero = whole === '0' && fraction === '';
  return `${zero ? '' : sign}${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * An amount for a person: `0.0025 USDC`, and with `atomic` the API's count beside it
 * (`0.0025 USDC (2500)`), for views where a reader may need to match it with the API's. An asset
 * whose decimals Townhall does not know is shown as what it is: `2500 atomic units of EURC`.
 */
export function formatAmount(
  amount: string | bigint,
  asset: string,
  options: { atomic?: boolean } = {},
): string {
  const units = assetUnits(asset);
  if (!units) {
    decimalAmount(amount, 0); // the same refusal of what is not an amount
    return `${String(amount)} atomic units of ${asset}`;
  }
  const shown = `${decimalAmount(amount, units.decimals)} ${units.symbol}`;
  return options.atomic ? `${shown} (${String(amount)})` : shown;
}
