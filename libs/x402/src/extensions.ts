// What only a server runs of x402's official extensions (@x402/extensions): the service's receipt
// key (node:crypto), its signed offers and receipts (`offer-receipt`), the `payment-identifier`
// it reads from a payment, and the `bazaar` description of a paid route. A separate entry
// (`@townhall/x402/extensions`) so neither the root nor the SDK loads them.
export * from './extensions/receipt-signer.js';
export * from './extensions/offer-receipt.js';
export * from './extensions/payment-identifier.js';
export * from './extensions/bazaar.js';
