import type { ProblemCode } from '@townhall/contracts';

export type PaymentFailure =
  | 'malformed'
  | 'invalid_scheme'
  | 'invalid_network'
  | 'invalid_signature'
  | 'payer_mismatch'
  | 'recipient_mismatch'
  | 'asset_mismatch'
  | 'amount_mismatch'
  | 'resource_mismatch'
  | 'expired'
  | 'validity_too_long'
  | 'not_yet_valid'
  | 'insufficient_funds'
  | 'nonce_reused'
  | 'settlement_failed';

/**
 * Every refused payment says which check refused it: the ticketing service turns `reason` into the problem
 * code of its answer (see `paymentProblemCode`) and the client learns what to fix without parsing prose.
 */
export class PaymentError extends Error {
  constructor(
    readonly reason: PaymentFailure,
    detail: string,
  ) {
    super(detail);
    this.name = 'PaymentError';
  }
}

/** The `@townhall/contracts` problem code for each refusal, so every service answers a given failure alike. */
// Extract, not a literal union: a code renamed in contracts becomes `never` here and fails the build.
export type PaymentProblemCode = Extract<
  ProblemCode,
  'payment.invalid' | 'payment.insufficient_funds' | 'payment.nonce_reused' | 'payment.settlement_failed'
>;

export function paymentProblemCode(reason: PaymentFailure): PaymentProblemCode {
  switch (reason) {
    case 'insufficient_funds':
      return 'payment.insufficient_funds';
    case 'nonce_reused':
      return 'payment.nonce_reused';
    case 'settlement_failed':
      return 'payment.settlement_failed';
    default:
      return 'payment.invalid';
  }
}
