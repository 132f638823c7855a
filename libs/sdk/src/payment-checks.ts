// What the SDK checks before it signs a payment the server asked for. The server names the payee,
// the amount and the asset; a compromised server, or anyone between an http base URL and the agent,
// could name others. So a payment is signed only when it is the one the agent means to make.
import type { RefundView } from '@townhall/contracts';
import { USDC_MINTS } from '@townhall/x402';

/** USDC's asset ids: the ledger's `USDC` and Circle's mint on each Solana cluster. */
export const USDC_ASSETS: readonly string[] = ['USDC', ...new Set(Object.values(USDC_MINTS))];

/**
 * The assets an agent pays in on `network`: `assets` when the caller names them, else USDC as that
 * network names it (`USDC` on a ledger, Circle's mint of the cluster on Solana, none elsewhere).
 */
export function acceptedAssetsOn(network: string, assets?: readonly string[]): readonly string[] {
  if (assets !== undefined) return assets;
  if (network.startsWith('ledger:')) return ['USDC'];
  const mint = USDC_MINTS[network];
  return mint === undefined ? [] : [mint];
}

/** Whether an agent that pays in `assets` (default: USDC) pays in `asset` on `network`. */
export function acceptsAsset(network: string, asset: string, assets?: readonly string[]): boolean {
  return acceptedAssetsOn(network, assets).includes(asset);
}

/** The field of a payment requirement that differed from what the SDK would sign. */
export type PaymentField = 'scheme' | 'network' | 'payTo' | 'amount' | 'asset';

/** What a refused field was checked against: the refund it pays, or the assets the caller pays in. */
export type PaymentCheck = 'refund' | 'assets';

/**
 * The SDK refused to sign a payment the server asked for: it paid someone other than it should,
 * another amount, on another network, or in an asset the caller does not pay in. Nothing was
 * signed and nothing was sent. Switch on `code` (always `payment.refused`) and `field`.
 */
export class PaymentRefusedError extends Error {
  override readonly name = 'PaymentRefusedError';
  readonly code = 'payment.refused';

  constructor(
    /** Which field of the requirement differed. */
    readonly field: PaymentField,
    /** What it differed from: `assets` means the caller could pay it by accepting the asset. */
    readonly against: PaymentCheck,
    /** What the server asked to sign there. */
    readonly offered: string,
    /** What the SDK would have signed there: the refund's value, or the assets the caller pays in. */
    readonly expected: readonly string[],
    /** Human-readable prose, as a TownhallError's; the message is `payment.refused: <detail>`. */
    readonly detail: string,
  ) {
    // The code leads the message too, so it survives a wrapper that keeps only the message
    // (@x402/fetch's "Failed to create payment payload: ...").
    super(`payment.refused: ${detail}`);
  }
}

/** The refusal of a payment (`subject`, e.g. `a ticket (tier vip)`) in an asset the caller does not pay in. */
export function assetRefusal(
  subject: string,
  network: string,
  asset: string,
  assets?: readonly string[],
): PaymentRefusedError {
  const accepted = acceptedAssetsOn(network, assets);
  return new PaymentRefusedError(
    'asset',
    'assets',
    asset,
    accepted,
    `${subject} is paid in ${asset} on ${network}, not in an asset this agent pays in (${
      accepted.join(', ') || 'none'
    }); nothing was signed`,
  );
}

/**
 * Throws PaymentRefusedError unless `refund.payment` pays exactly the refund: the x402 client
 * transfers `amount` of `asset` to the associated token account of `payTo` for that mint, so
 * `payTo` must be the ticket's holder, `amount`, `asset` and `network` the refund's own, the scheme
 * `exact`, and the asset one the caller pays in.
 */
export function checkRefundPayment(refund: RefundView, assets?: readonly string[]): void {
  const payment = refund.payment;
  if (payment === null) return;
  // The v1 name of the amount is not part of a refund's payment; one sent anyway must agree too.
  const v1Amount = (payment as { maxAmountRequired?: unknown }).maxAmountRequired;
  const pairs: Array<[PaymentField, unknown, string]> = [
    ['scheme', payment.scheme, 'exact'],
    ['network', payment.network, refund.network],
    ['payTo', payment.payTo, refund.holderId],
    ['asset', payment.asset, refund.asset],
    ['amount', payment.amount, refund.amount],
    ...(v1Amount === undefined
      ? []
      : [['amount', v1Amount, refund.amount] as [PaymentField, unknown, string]]),
  ];
  for (const [field, offered, expected] of pairs)
    if (offered !== expected)
      throw new PaymentRefusedError(
        field,
        'refund',
        String(offered),
        [expected],
        `refund ${refund.id}: its payment's ${field} is ${String(offered)}, the refund's is ${expected}; nothing was signed`,
      );
  if (!acceptsAsset(refund.network, refund.asset, assets))
    throw assetRefusal(`refund ${refund.id}`, refund.network, refund.asset, assets);
}
