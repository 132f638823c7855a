import {
  declarePaymentIdentifierExtension,
  PAYMENT_IDENTIFIER,
  validatePaymentIdentifier,
} from '@x402/extensions/payment-identifier';
import type { PaymentPayload } from '../payload.js';

export { PAYMENT_IDENTIFIER };

/** What the 402 declares: a payment may carry an id (not required), as the package's server helper builds it. */
export function paymentIdentifierDeclaration(): unknown {
  return declarePaymentIdentifierExtension(false);
}

/** A `payment-identifier` the package's checks refuse: the reason, for the caller's answer. */
export class PaymentIdentifierError extends Error {
  override readonly name = 'PaymentIdentifierError';
}

/**
 * The id a payment carries in its v2 `payment-identifier` extension (docs/protocol/payments.md
 * "payment-identifier"), undefined when it carries none. Checked with the package's
 * `validatePaymentIdentifier` against the `info` alone: the `schema` a client echoes is never
 * compiled (the package would hand it to Ajv, and a client's regular expression is not ours to
 * run). An id that is not 16-128 characters of `A-Z a-z 0-9 _ -` (a NUL, a lone surrogate, a
 * number, a megabyte) throws PaymentIdentifierError.
 */
export function paymentIdentifierOf(payment: PaymentPayload): string | undefined {
  const extension = payment.extensions?.[PAYMENT_IDENTIFIER];
  if (extension === undefined) return undefined;
  const info =
    typeof extension === 'object' && extension !== null ? (extension as { info?: unknown }).info : undefined;
  const checked = validatePaymentIdentifier({ info });
  if (!checked.valid) throw new PaymentIdentifierError(checked.errors?.[0] ?? 'invalid payment-identifier');
  const id = (info as { id?: string }).id;
  return id;
}
