import type { ReceiptKeySet } from '@townhall/contracts';
import type { ReceiptSigner } from '@townhall/x402/extensions';

/** Injection tokens of what only the ticketing service has (the shared ones are @townhall/platform's). */
export const FACILITATOR = Symbol('Facilitator');
export const RAILS = Symbol('PaymentRails');
export const SIGNATURES = Symbol('SignatureVerifier');
export const RECEIPT_KEYS = Symbol('ReceiptKeys');

/** The key offers and receipts are signed with, and the set published at /.well-known/jwks.json. */
export interface ReceiptKeys {
  signer: ReceiptSigner;
  published: ReceiptKeySet;
}
