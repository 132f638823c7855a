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

/**
 * Any x402 facilitator over HTTP (`POST /verify`, `POST /settle`, `GET /supported`), through
 * @x402/core's own HTTPFacilitatorClient: its request shapes, its response schemas, its per-request
 * deadline. Around it, this class answers every facilitator problem as a failure with a reason
 * instead of a rejection (a refusal, a timeout, a 5xx, an unreachable host, a body that is not
 * x402), refuses to send requirements or payloads x402 would not parse, and reports a settlement
 * only for `success: true`. A timeout on /settle is indeterminate: the caller keeps the payment
 * and asks again (docs/protocol/payments.md "Settlement states").
 */
export class HttpFacilitator implements Facilitator {
  private readonly client: HTTPFacilitatorClient;

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
    this.client = new HTTPFacilitatorClient({
      url: url.href,
      timeoutMs: options?.timeoutMs ?? DEFAULT_FACILITATOR_TIMEOUT_MS,
    });
  }

  get timeoutMs(): number {
    return this.client.timeoutMs;
  }

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

/** The part of @x402/core's `x402Facilitator` (or any FacilitatorClient) this module calls. */
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
 * The official `x402Facilitator` in this process (X402_FACILITATOR=solana-local: @x402/svm's
 * exact scheme over a local SVM runtime), with the same answers as HttpFacilitator: the same
 * request checks, a failure with a reason for anything it throws, never a rejection.
 */
export class InProcessFacilitator implements Facilitator {
  constructor(private readonly facilitator: OfficialFacilitator) {}

  async verify(payment: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResult> {
    const request = facilitatorRequest(payment, requirements);
    if (isFailure(request))
      return { isValid: false, invalidReason: request.reason, invalidMessage: request.message };
    try {
      const { isValid, invalidReason, invalidMessage, payer } = await this.facilitator.verify(
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
      return {
        isValid: false,
        invalidReason: FACILITATOR_FAILURES.verifyRefused,
        invalidMessage: error instanceof Error ? error.message : String(error),
      };
    }
  }

  async settle(payment: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResult> {
    const request = facilitatorRequest(payment, requirements);
    if (isFailure(request)) {
      return {
        success: false,
        errorReason: request.reason,
        errorMessage: request.message,
        transaction: '',
        network: requirements.network,
      };
    }
    try {
      const answer = await this.facilitator.settle(
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
        result.errorReason = answer.errorReason || FACILITATOR_FAILURES.settleRefused;
        if (answer.errorMessage) result.errorMessage = answer.errorMessage;
      }
      return result;
    } catch (error) {
      // Thrown, not answered: whether anything reached the chain is unknown, so it decides nothing.
      return {
        success: false,
        errorReason: FACILITATOR_FAILURES.httpError,
        errorMessage: error instanceof Error ? error.message : String(error),
        transaction: '',
        network: requirements.network,
      };
    }
  }

  async supported(): Promise<SupportedKinds> {
    const { kinds } = await this.facilitator.getSupported();
    return { kinds: kinds.map((kind) => ({ ...kind })) };
  }
}
