import { FACILITATOR_FAILURES, type SettleResult } from '@townhall/x402';

/**
 * Every facilitator here settles on Solana (config.ts), where a failure decides a payment only
 * when it is known to be given before anything was sent. A Solana payment is a transaction the
 * buyer (or host) signed; once a facilitator has sent it, it may land until its blockhash expires,
 * whatever the facilitator answers afterwards, and a wrong "failed" releases a seat that was paid
 * for or has a refund paid twice. So any other answer, including no answer (a timeout, a 5xx) and
 * one this list does not know, leaves the payment open, and the chain decides it (SolanaChain:
 * landed, failed, or expired unlanded).
 *
 * The list: what never reached a facilitator (our own checks of the request), and the verify
 * reasons of @x402/svm's facilitator (`ExactSvmScheme`, v2 and v1), which its `settle` returns
 * from the verification it runs before it signs and sends. Its other answers come after a send
 * or while one may be running (`invalid_exact_svm_transaction_failed` and v1's
 * `transaction_failed`: the send threw or the transaction failed on chain; `settlement_pending`;
 * `duplicate_settlement`; `post_settlement_transfer_not_confirmed`).
 */
const REFUSED_BEFORE_SENDING: ReadonlySet<string> = new Set([
  FACILITATOR_FAILURES.invalidPayload,
  FACILITATOR_FAILURES.invalidRequirements,
  // @x402/svm v2 (ExactSvmScheme._verify and its static and smart-wallet paths).
  'invalid_exact_svm_unsupported_scheme',
  'invalid_exact_svm_network_mismatch',
  'invalid_exact_svm_payload_missing_fee_payer',
  'invalid_exact_svm_fee_payer_not_managed_by_facilitator',
  'invalid_exact_svm_fee_payer_mismatch',
  'invalid_exact_svm_payload_transaction',
  'invalid_exact_svm_payload_transaction_could_not_be_decoded',
  'invalid_exact_svm_payload_signature_invalid',
  'invalid_exact_svm_payload_excessive_signers',
  'invalid_exact_svm_payload_transaction_instructions_length',
  'invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction',
  'invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high',
  'invalid_exact_svm_payload_transaction_instructions_compute_price_instruction',
  'invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high',
  'invalid_exact_svm_payload_no_transfer_instruction',
  'invalid_exact_svm_payload_transaction_fee_payer_transferring_funds',
  'invalid_exact_svm_payload_mint_mismatch',
  'invalid_exact_svm_payload_recipient_mismatch',
  'invalid_exact_svm_payload_amount_mismatch',
  'invalid_exact_svm_payload_unknown_fourth_instruction',
  'invalid_exact_svm_payload_unknown_fifth_instruction',
  'invalid_exact_svm_payload_unknown_sixth_instruction',
  'invalid_exact_svm_payload_unknown_seventh_instruction',
  'invalid_exact_svm_payload_unknown_optional_instruction',
  'invalid_exact_svm_payload_memo_count',
  'invalid_exact_svm_payload_memo_mismatch',
  'invalid_exact_svm_transaction_simulation_failed',
  'invalid_exact_svm_verification_failed',
  'invalid_exact_svm_smart_wallet_fee_payer_not_isolated',
  'invalid_exact_svm_smart_wallet_malformed_compute_budget',
  'invalid_exact_svm_smart_wallet_malformed_compute_limit',
  'invalid_exact_svm_smart_wallet_malformed_compute_price',
  'invalid_exact_svm_smart_wallet_compute_units_too_high',
  'invalid_exact_svm_smart_wallet_priority_fee_too_high',
  'invalid_exact_svm_smart_wallet_unsupported_compute_budget_instruction',
  'invalid_exact_svm_smart_wallet_alt_resolution_not_available',
  'invalid_exact_svm_smart_wallet_alt_resolution_failed',
  'invalid_exact_svm_smart_wallet_compute_budget_violation',
  'invalid_exact_svm_smart_wallet_simulation_failed',
  'invalid_exact_svm_smart_wallet_cannot_derive_destination_ata',
  'invalid_exact_svm_smart_wallet_no_transfer_in_simulation',
  'invalid_exact_svm_smart_wallet_transfer_mismatch',
  'invalid_exact_svm_smart_wallet_multiple_matching_transfers',
  'invalid_exact_svm_smart_wallet_program_not_allowed',
  // @x402/svm v1 (ExactSvmSchemeV1.verify), where it names a reason of its own.
  'unsupported_scheme',
  'network_mismatch',
  'fee_payer_not_managed_by_facilitator',
  'transaction_simulation_failed',
  'verification_failed',
]);

/**
 * Whether a reason is one given before sending. @x402/svm adds a detail to some of its verify
 * reasons (`invalid_exact_svm_smart_wallet_program_not_allowed: <program>`), so a listed reason
 * followed by `: ` and a detail counts as that reason.
 */
function refusedBeforeSending(reason: string): boolean {
  const separator = reason.indexOf(': ');
  return REFUSED_BEFORE_SENDING.has(separator === -1 ? reason : reason.slice(0, separator));
}

/**
 * Whether the first /settle answer for a payment leaves it open (it may have been sent, or may
 * still settle). Later answers for the same payment decide nothing but a success: by then an
 * earlier attempt may have sent it (FacilitatorSettlements and PayRefund ask the chain).
 */
export function leavesOpen(result: SettleResult): boolean {
  if (result.success) return false;
  return !refusedBeforeSending(result.errorReason ?? FACILITATOR_FAILURES.settleRefused);
}

/** The facilitator says a payment names a fee payer that is not (or no longer) its own. */
export const FEE_PAYER_REFUSALS: ReadonlySet<string> = new Set([
  'invalid_exact_svm_fee_payer_not_managed_by_facilitator',
  'invalid_exact_svm_fee_payer_mismatch',
  'invalid_exact_svm_payload_missing_fee_payer',
]);
