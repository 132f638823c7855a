import { PaymentRequirementsV1Schema, PaymentRequirementsV2Schema } from '@x402/core/schemas';
import type {
  PaymentPayloadV1,
  PaymentPayloadV2,
  PaymentRequirementsV1,
  PaymentRequirementsV2,
} from '@x402/core/schemas';
import { PaymentError } from './errors.js';
import { toWirePaymentPayload } from './payload.js';
import type { PaymentPayload } from './payload.js';
import { toPaymentRequirementsV2 } from './requirements.js';
import type { PaymentRequirements } from './requirements.js';
import { describeIssue } from './schema-issue.js';

export interface VerifyResult {
  isValid: boolean;
  invalidReason?: string;
  /** Human-readable detail for logs; never switched on. */
  invalidMessage?: string;
  payer?: string;
}

export interface SettleResult {
  success: boolean;
  errorReason?: string;
  /** Human-readable detail for logs; never switched on. */
  errorMessage?: string;
  transaction: string;
  network: string;
  payer?: string;
}

export interface SupportedKinds {
  /** `extra` carries what a scheme needs from the facilitator, e.g. Solana `exact`'s `feePayer`. */
  kinds: Array<{ x402Version: number; scheme: string; network: string; extra?: Record<string, unknown> }>;
}

export interface Facilitator {
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResult>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResult>;
  supported(): Promise<SupportedKinds>;
}

/** Reasons this client gives on its own, when the facilitator gave none it could use. */
export const FACILITATOR_FAILURES = {
  timeout: 'facilitator_timeout',
  unreachable: 'facilitator_unreachable',
  httpError: 'facilitator_http_error',
  invalidResponse: 'facilitator_invalid_response',
  invalidPayload: 'invalid_payload',
  invalidRequirements: 'invalid_payment_requirements',
  verifyRefused: 'unexpected_verify_error',
  settleRefused: 'unexpected_settle_error',
} as const;

export const DEFAULT_FACILITATOR_TIMEOUT_MS = 10_000;

type FacilitatorRequest =
  | { x402Version: 1; paymentPayload: PaymentPayloadV1; paymentRequirements: PaymentRequirementsV1 }
  | { x402Version: 2; paymentPayload: PaymentPayloadV2; paymentRequirements: PaymentRequirementsV2 };

export type Failure = { reason: string; message: string };

/**
 * The x402 facilitator request body: the version of the payload decides the requirements' form, because a
 * facilitator matches `paymentPayload` against `paymentRequirements` of the same version.
 */
export function facilitatorRequest(
  payment: PaymentPayload,
  requirements: PaymentRequirements,
): FacilitatorRequest | Failure {
  let paymentPayload: PaymentPayloadV1 | PaymentPayloadV2;
  try {
    paymentPayload = toWirePaymentPayload(payment);
  } catch (error) {
    if (!(error instanceof PaymentError)) throw error;
    return { reason: FACILITATOR_FAILURES.invalidPayload, message: error.message };
  }
  if (paymentPayload.x402Version === 1) {
    const checked = PaymentRequirementsV1Schema.safeParse(requirements);
    if (!checked.success) {
      return {
        reason: FACILITATOR_FAILURES.invalidRequirements,
        message: describeIssue(checked.error, 'requirements'),
      };
    }
    // Ours, not the parse output: zod 3 would re-shape nullish members, and the facilitator should see ours.
    return { x402Version: 1, paymentPayload, paymentRequirements: requirements };
  }
  const paymentRequirements = toPaymentRequirementsV2(requirements);
  const checked = PaymentRequirementsV2Schema.safeParse(paymentRequirements);
  if (!checked.success) {
    return {
      reason: FACILITATOR_FAILURES.invalidRequirements,
      message: describeIssue(checked.error, 'requirements'),
    };
  }
  return { x402Version: 2, paymentPayload, paymentRequirements };
}

export function isFailure(value: FacilitatorRequest | Failure): value is Failure {
  return 'reason' in value;
}
