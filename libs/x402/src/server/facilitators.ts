import { HTTPFacilitatorClient } from '@x402/core/http';
import { PaymentError } from '../errors.js';
import {
  DEFAULT_FACILITATOR_TIMEOUT_MS,
  FACILITATOR_FAILURES,
  facilitatorRequest,
  isFailure,
  type Facilitator,
  type Failure,
  type SettleResult,
  type SupportedKinds,
  type VerifyResult,
} from '../facilitator.js';
import type { PaymentPayload } from '../payload.js';
import type { PaymentRequirements } from '../requirements.js';

/** What the official client threw, as the failure this module answers instead (never a rejection). */
function failureOf(error: unknown, operation: string, timeoutMs: number): Failure & { payer?: string } {
  const named = error as { name?: unknown; message?: unknown };
  const message = typeof named?.message === 'string' ? named.message : String(error);
  // Duck-typed, not instanceof: the CJS and ESM builds of @x402/core each define these classes.
  if (named?.name === 'FacilitatorTimeoutError')
    return {
      reason: FACILITATOR_FAILURES.timeout,
      message: `${operation} got no answer within ${timeoutMs} ms`,
    };
  if (named?.name === 'FacilitatorResponseError')
    return { reason: FACILITATOR_FAILURES.invalidResponse, message };
  const refusal = error as { invalidReason?: unknown; errorReason?: unknown; payer?: unknown };
  if (named?.name === 'VerifyError' || named?.name === 'SettleError') {
    const reason = named.name === 'VerifyError' ? refusal.invalidReason : refusal.errorReason;
    return {
      reason: typeof reason === 'string' && reason !== '' ? reason : FACILITATOR_FAILURES.httpError,
      message,
      ...(typeof refusal.payer === 'string' && refusal.payer !== '' ? { payer: refusal.payer } : {}),
    };
  }
  // fetch rejects with a TypeError when nothing answered (refused, reset, DNS); by name, since
  // it may come from another realm (undici's).
  if (named?.name === 'TypeError')
    return { reason: FACILITATOR_FAILURES.unreachable, message: `${operation} failed: ${message}` };
  return { reason: FACILITATOR_FAILURES.httpError, message };
}

/** The part of @x402/core's FacilitatorClient (HTTPFacilitatorClient, or `x402Facilitator` in process) called here. */
export interface OfficialFacilitator {
  verify(
    paymentPayload: never,
    paymentRequirements: never,
  ): Promise<VerifyResult & { invalidReason?: string }>;
  settle(
    paymentPayload: never,
    paymentRequirements: never,
  ): Promise<{
    success: boolean;
    errorReason?: string;
    errorMessage?: string;
    payer?: string;
    transaction: string;
    network: string;
  }>;
  getSupported(): { kinds: SupportedKinds['kinds'] } | Promise<{ kinds: SupportedKinds['kinds'] }>;
}

/**
 * An official x402 facilitator client, answered as this module answers: every facilitator problem
 * is a failure with a reason instead of a rejection (a refusal, a timeout, a 5xx, an unreachable
 * host, a body that is not x402, anything thrown), requirements or payloads x402 would not parse
 * are never sent, and only `success: true` is a settlement. A settle that got no answer is
 * indeterminate: the caller keeps the payment and asks again (docs/protocol/payments.md
 * "Settlement states").
 */
class AnsweringFacilitator implements Facilitator {
  constructor(
    private readonly client: OfficialFacilitator,
    /** For the message of a timeout. */
    readonly timeoutMs: number,
  ) {}

  async verify(payment: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResult> {
    const request = facilitatorRequest(payment, requirements);
    if (isFailure(request))
      return { isValid: false, invalidReason: request.reason, invalidMessage: request.message };
    try {
      const { isValid, invalidReason, invalidMessage, payer } = await this.client.verify(
        request.paymentPayload as never,
        request.paymentRequirements as never,
      );
      if (isValid) return payer ? { isValid, payer } : { isValid };
      return {
        isValid: false,
        invalidReason: invalidReason || FACILITATOR_FAILURES.verifyRefused,
        ...(invalidMessage ? { invalidMessage } : {}),
        ...(payer ? { payer } : {}),
      };
    } catch (error) {
      const failure = failureOf(error, 'POST /verify', this.timeoutMs);
      return {
        isValid: false,
        invalidReason: failure.reason,
        invalidMessage: failure.message,
        ...(failure.payer ? { payer: failure.payer } : {}),
      };
    }
  }

  async settle(payment: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResult> {
    const failed = (failure: Failure & { payer?: string }, transaction = ''): SettleResult => ({
      success: false,
      errorReason: failure.reason,
      errorMessage: failure.message,
      transaction,
      network: requirements.network,
      ...(failure.payer ? { payer: failure.payer } : {}),
    });
    const request = facilitatorRequest(payment, requirements);
    if (isFailure(request)) return failed(request);
    try {
      const answer = await this.client.settle(
        request.paymentPayload as never,
        request.paymentRequirements as never,
      );
      const result: SettleResult = {
        success: answer.success,
        transaction: answer.transaction,
        network: answer.network || requirements.network,
      };
      if (answer.payer) result.payer = answer.payer;
      if (!answer.success) {
        // `success: false` is a failure whatever the HTTP status (docs/protocol/payments.md).
        result.errorReason = answer.errorReason || FACILITATOR_FAILURES.settleRefused;
        if (answer.errorMessage) result.errorMessage = answer.errorMessage;
      }
      return result;
    } catch (error) {
      const thrown = error as { transaction?: unknown };
      return failed(
        failureOf(error, 'POST /settle', this.timeoutMs),
        typeof thrown?.transaction === 'string' ? thrown.transaction : '',
      );
    }
  }

  /** Rejects with PaymentError('settlement_failed') when the facilitator cannot say what it supports. */
  async supported(): Promise<SupportedKinds> {
    let answer;
    try {
      answer = await this.client.getSupported();
    } catch (error) {
      throw new PaymentError('settlement_failed', failureOf(error, 'GET /supported', this.timeoutMs).message);
    }
    return {
      kinds: answer.kinds.map(({ x402Version, scheme, network, extra }) => ({
        x402Version,
        scheme,
        network,
        ...(extra ? { extra: extra as Record<string, unknown> } : {}),
      })),
    };
  }
}

/**
 * Any x402 facilitator over HTTP (`POST /verify`, `POST /settle`, `GET /supported`), through
 * @x402/core's own HTTPFacilitatorClient: its request shapes, its response schemas, its
 * per-request deadline.
 */
export class HttpFacilitator extends AnsweringFacilitator {
  constructor(baseUrl: string, options?: { timeoutMs?: number }) {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new RangeError(`not a facilitator URL: ${baseUrl}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new RangeError('a facilitator URL is http or https');
    }
    // The official client checks the timeout (a positive integer of ms) and throws RangeError.
    const client = new HTTPFacilitatorClient({
      url: url.href,
      timeoutMs: options?.timeoutMs ?? DEFAULT_FACILITATOR_TIMEOUT_MS,
    });
    super(client, client.timeoutMs);
  }
}

/**
 * The official `x402Facilitator` in this process (X402_FACILITATOR=solana-local: @x402/svm's
 * exact scheme over a local SVM runtime), answered exactly as HttpFacilitator answers.
 */
export class InProcessFacilitator extends AnsweringFacilitator {
  constructor(facilitator: OfficialFacilitator) {
    super(facilitator, 0);
  }
}
