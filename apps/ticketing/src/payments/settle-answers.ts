import { FACILITATOR_FAILURES, isSolanaNetwork, type SettleResult } from '@townhall/x402';

/**
 * Answers of a facilitator that decide nothing: it may have settled (or may still), so the
 * payment stays open and is asked about again. Anything else it says is an outcome.
 */
const UNDECIDED: ReadonlySet<string> = new Set([
  FACILITATOR_FAILURES.timeout,
  FACILITATOR_FAILURES.unreachable,
  FACILITATOR_FAILURES.httpError,
  FACILITATOR_FAILURES.invalidResponse,
]);

/**
 * Answers of a Solana facilitator that leave a payment open too: it was sent, or may have been,
 * or a settlement of it may still be running (@x402/svm's `settlement_pending`;
 * `duplicate_settlement` while its first settle runs and for two minutes after; a send that failed
 * or whose outcome it did not confirm). The chain decides those (SolanaChain): landed, failed, or
 * expired unlanded.
 */
const SOLANA_UNDECIDED: ReadonlySet<string> = new Set([
  'settlement_pending',
  'duplicate_settlement',
  'invalid_exact_svm_transaction_failed',
  'post_settlement_transfer_not_confirmed',
  FACILITATOR_FAILURES.settleRefused,
]);

/** Whether a /settle answer leaves the payment open (it may have been sent, or may still settle). */
export function leavesOpen(result: SettleResult, network: string): boolean {
  if (result.success) return false;
  const reason = result.errorReason ?? FACILITATOR_FAILURES.settleRefused;
  return UNDECIDED.has(reason) || (isSolanaNetwork(network) && SOLANA_UNDECIDED.has(reason));
}

/** The facilitator says a payment names a fee payer that is not (or no longer) its own. */
export const FEE_PAYER_REFUSALS: ReadonlySet<string> = new Set([
  'invalid_exact_svm_fee_payer_not_managed_by_facilitator',
  'invalid_exact_svm_fee_payer_mismatch',
  'invalid_exact_svm_payload_missing_fee_payer',
]);
