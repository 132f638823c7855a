import type { PaymentRequiredV2, PaymentRequirementsV2 } from '@x402/core/schemas';
import type { PaymentRequired } from '@x402/core/types';
import type {
  JWSSignedReceipt,
  OfferReceiptIssuer,
  ReceiptPayload,
  SignedOffer,
} from '@x402/extensions/offer-receipt';
import type { ReceiptSigner } from './receipt-signer.js';

/** The x402 extension key of signed offers and receipts. */
export const OFFER_RECEIPT_KEY = 'offer-receipt';

/**
 * What a receipt names (docs/protocol/payments.md "The receipt"): the package's receipt payload
 * (resource, payer, network, transaction, when), and the amount and asset paid, which the
 * package's payload leaves out and a buyer's proof of purchase needs.
 */
export interface ReceiptClaims {
  resourceUrl: string;
  payer: string;
  network: string;
  transaction: string;
  amount: string;
  asset: string;
  /** When the ticket was issued. */
  issuedAt: Date;
}

export type TicketReceiptPayload = ReceiptPayload & { amount: string; asset: string };

// The package imports viem for its EIP-712 form: a third of a second of one thread's CPU.
let loaded: Promise<typeof import('@x402/extensions/offer-receipt')> | undefined;
const offerReceipt = () => (loaded ??= import('@x402/extensions/offer-receipt'));

/**
 * Loads the package now. A server calls it while it starts: loaded with the first 402 instead, the
 * import held the event loop while a burst of buyers held seats and pool connections, and a third
 * of them were shed as `service.overloaded`.
 */
export async function loadOfferReceipts(): Promise<void> {
  await offerReceipt();
}

/**
 * The `offer-receipt` extension of a v2 PaymentRequired, as the package's server extension builds
 * it (`createOfferReceiptExtension(...).enrichPaymentRequiredResponse`): one JWS offer per accept,
 * in order. Each offer names its own accept's resource (`resourceOf`), the URL a payment for that
 * tier is for, rather than the one URL the 402 shares between tiers.
 */
export async function offerExtension(
  signer: ReceiptSigner,
  v2: PaymentRequiredV2,
  resourceOf: (accept: PaymentRequirementsV2) => string,
): Promise<unknown> {
  // The schemas' type and the types' differ only in that the latter spells a network `${string}:${string}`.
  const paymentRequired = v2 as PaymentRequired;
  const { createOfferReceiptExtension, createOfferJWS, declareOfferReceiptExtension } = await offerReceipt();
  const jws = signer.jws;
  const issuer: OfferReceiptIssuer = {
    kid: jws.kid,
    format: 'jws',
    issueOffer: (resourceUrl, input): Promise<SignedOffer> => {
      const accept = v2.accepts[input.acceptIndex];
      return createOfferJWS(accept ? resourceOf(accept) : resourceUrl, input, jws);
    },
    issueReceipt: () => Promise.reject(new Error('offers only')),
  };
  const extension = createOfferReceiptExtension(issuer);
  return extension.enrichPaymentRequiredResponse!(declareOfferReceiptExtension()[OFFER_RECEIPT_KEY], {
    requirements: paymentRequired.accepts,
    resourceInfo: paymentRequired.resource,
    paymentRequiredResponse: paymentRequired,
  });
}

/** A new receipt: the package's JWS (`createJWS`, JCS-canonical payload) over the claims. */
export async function signReceipt(signer: ReceiptSigner, claims: ReceiptClaims): Promise<JWSSignedReceipt> {
  const { createJWS } = await offerReceipt();
  const payload: TicketReceiptPayload = {
    version: 1,
    network: claims.network,
    resourceUrl: claims.resourceUrl,
    payer: claims.payer,
    issuedAt: Math.floor(claims.issuedAt.getTime() / 1000),
    transaction: claims.transaction,
    amount: claims.amount,
    asset: claims.asset,
  };
  return { format: 'jws', signature: await createJWS(payload, signer.jws) };
}

/**
 * The `offer-receipt` extension of a settlement answer (PAYMENT-RESPONSE) carrying `receipt`, as
 * the package's server extension builds it (`enrichSettlementResponse`), so that its client's
 * `extractReceiptFromResponse` finds it. The receipt is given, signed when the ticket was issued:
 * the same payment answered again carries the same receipt.
 */
export async function receiptExtension(
  receipt: JWSSignedReceipt,
  settled: { resourceUrl: string; payer: string; network: string; transaction: string },
): Promise<unknown> {
  const { createOfferReceiptExtension, declareOfferReceiptExtension } = await offerReceipt();
  const extension = createOfferReceiptExtension({
    kid: '',
    format: 'jws',
    issueOffer: () => Promise.reject(new Error('receipts only')),
    issueReceipt: () => Promise.resolve(receipt),
  });
  // The hook reads the settlement's result and the request's URL, nothing else of the context.
  const context = {
    result: {
      success: true,
      payer: settled.payer,
      network: settled.network,
      transaction: settled.transaction,
    },
    transportContext: { request: { adapter: { getUrl: () => settled.resourceUrl } } },
  } as unknown as Parameters<NonNullable<typeof extension.enrichSettlementResponse>>[1];
  return extension.enrichSettlementResponse!(
    declareOfferReceiptExtension({ includeTxHash: true })[OFFER_RECEIPT_KEY],
    context,
  );
}
