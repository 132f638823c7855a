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
 * Every refused payment says which check refused it: the ticketing service's 402 carries `reason`
 * in its x402 body, and the client learns what to fix without parsing prose.
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
