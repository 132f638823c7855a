import { PaymentRequirementsV1Schema, PaymentRequirementsV2Schema } from '@x402/core/schemas';
import type {
  PaymentPayloadV1,
  PaymentPayloadV2,
  PaymentRequirementsV1,
  PaymentRequirementsV2,
} from '@x402/core/schemas';
import { z } from 'zod';
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
  kinds: Array<{ x402Version: number; scheme: string; network: string }>;
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

// @x402/core's HTTPFacilitatorClient keeps its response schemas private (and they are zod 3), so these
// are ours, in zod 4, as lenient as x402's own: nullish optionals, unknown members ignored.
const optionalText = z
  .string()
  .nullish()
  .transform((value) => value ?? undefined);
const VerifyResponseSchema = z.object({
  isValid: z.boolean(),
  invalidReason: optionalText,
  invalidMessage: optionalText,
  payer: optionalText,
});
const SettleResponseSchema = z.object({
  success: z.boolean(),
  errorReason: optionalText,
  errorMessage: optionalText,
  payer: optionalText,
  transaction: z.string(),
  network: z.string(),
});
const SupportedResponseSchema = z.object({
  kinds: z.array(
    z.object({ x402Version: z.number().int(), scheme: z.string().min(1), network: z.string().min(1) }),
  ),
});
// A refusal with a non-2xx status may still carry x402's reason fields; take them when it does.
const FailureBodySchema = z.object({
  invalidReason: optionalText,
  invalidMessage: optionalText,
  errorReason: optionalText,
  errorMessage: optionalText,
});

type FacilitatorRequest =
  | { x402Version: 1; paymentPayload: PaymentPayloadV1; paymentRequirements: PaymentRequirementsV1 }
  | { x402Version: 2; paymentPayload: PaymentPayloadV2; paymentRequirements: PaymentRequirementsV2 };

type Failure = { reason: string; message: string };

type Exchange =
  { kind: 'answered'; status: number; ok: boolean; text: string } | ({ kind: 'failed' } & Failure);

function excerpt(text: string): string {
  const compact = text.trim().replace(/\s+/g, ' ');
  if (compact === '') return '<empty body>';
  return compact.length <= 200 ? compact : `${compact.slice(0, 197)}...`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The x402 facilitator request body: the version of the payload decides the requirements' form, because a
 * facilitator matches `paymentPayload` against `paymentRequirements` of the same version.
 */
function facilitatorRequest(
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

function isFailure(value: FacilitatorRequest | Failure): value is Failure {
  return 'reason' in value;
}

/**
 * Any x402 facilitator over HTTP (`POST /verify`, `POST /settle`, `GET /supported`). Not @x402/core's
 * HTTPFacilitatorClient: that one throws on a non-2xx or a network error, cannot take an injected fetch,
 * waits 90 s by default and logs to the console. Here verify and settle never reject for a facilitator
 * problem: they answer a failure with a reason, and only `success: true` on a 2xx is a settlement.
 */
export class HttpFacilitator implements Facilitator {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(baseUrl: string, options?: { timeoutMs?: number; fetch?: typeof fetch }) {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new RangeError(`not a facilitator URL: ${baseUrl}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new RangeError('a facilitator URL is http or https');
    }
    this.baseUrl = url.href.replace(/\/+$/, '');
    const timeoutMs = options?.timeoutMs ?? DEFAULT_FACILITATOR_TIMEOUT_MS;
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0 || timeoutMs > 2_147_483_647) {
      throw new RangeError('timeoutMs must be a positive integer number of milliseconds');
    }
    this.timeoutMs = timeoutMs;
    // Bound lazily so a test's replacement of globalThis.fetch after construction still applies.
    this.fetchImpl = options?.fetch ?? ((input, init) => fetch(input, init));
  }

  async verify(payment: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResult> {
    const request = facilitatorRequest(payment, requirements);
    if (isFailure(request))
      return { isValid: false, invalidReason: request.reason, invalidMessage: request.message };
    const exchange = await this.exchange('POST', '/verify', request);
    if (exchange.kind === 'failed') {
      return { isValid: false, invalidReason: exchange.reason, invalidMessage: exchange.message };
    }
    const json = parseJson(exchange.text);
    if (!exchange.ok) {
      const body = FailureBodySchema.safeParse(json);
      return {
        isValid: false,
        invalidReason: (body.success ? body.data.invalidReason : undefined) ?? FACILITATOR_FAILURES.httpError,
        invalidMessage: `HTTP ${exchange.status}: ${excerpt(exchange.text)}`,
      };
    }
    const parsed = VerifyResponseSchema.safeParse(json);
    if (!parsed.success) {
      return {
        isValid: false,
        invalidReason: FACILITATOR_FAILURES.invalidResponse,
        invalidMessage: `verify answered ${excerpt(exchange.text)}`,
      };
    }
    const { isValid, invalidReason, invalidMessage, payer } = parsed.data;
    if (isValid) return payer === undefined ? { isValid } : { isValid, payer };
    return {
      isValid: false,
      invalidReason: invalidReason ?? FACILITATOR_FAILURES.verifyRefused,
      ...(invalidMessage === undefined ? {} : { invalidMessage }),
      ...(payer === undefined ? {} : { payer }),
    };
  }

  async settle(payment: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResult> {
    const failed = (failure: Failure): SettleResult => ({
      success: false,
      errorReason: failure.reason,
      errorMessage: failure.message,
      transaction: '',
      network: requirements.network,
    });
    const request = facilitatorRequest(payment, requirements);
    if (isFailure(request)) return failed(request);
    // A timeout here is indeterminate (the facilitator may still settle); the caller must treat it as a
    // failure and reconcile, never as a success.
    const exchange = await this.exchange('POST', '/settle', request);
    if (exchange.kind === 'failed') return failed(exchange);
    const json = parseJson(exchange.text);
    if (!exchange.ok) {
      const body = FailureBodySchema.safeParse(json);
      return failed({
        reason: (body.success ? body.data.errorReason : undefined) ?? FACILITATOR_FAILURES.httpError,
        message: `HTTP ${exchange.status}: ${excerpt(exchange.text)}`,
      });
    }
    const parsed = SettleResponseSchema.safeParse(json);
    if (!parsed.success) {
      return failed({
        reason: FACILITATOR_FAILURES.invalidResponse,
        message: `settle answered ${excerpt(exchange.text)}`,
      });
    }
    const { success, errorReason, errorMessage, payer, transaction, network } = parsed.data;
    const result: SettleResult = {
      success,
      transaction,
      network: network === '' ? requirements.network : network,
    };
    if (payer !== undefined) result.payer = payer;
    if (!success) {
      // `success: false` is a failure whatever the HTTP status (docs/protocol/payments.md "The `http` facilitator").
      result.errorReason = errorReason ?? FACILITATOR_FAILURES.settleRefused;
      if (errorMessage !== undefined) result.errorMessage = errorMessage;
    }
    return result;
  }

  /** Rejects with PaymentError('settlement_failed') when the facilitator cannot say what it supports. */
  async supported(): Promise<SupportedKinds> {
    const exchange = await this.exchange('GET', '/supported');
    if (exchange.kind === 'failed') throw new PaymentError('settlement_failed', exchange.message);
    if (!exchange.ok) {
      throw new PaymentError(
        'settlement_failed',
        `supported answered HTTP ${exchange.status}: ${excerpt(exchange.text)}`,
      );
    }
    const parsed = SupportedResponseSchema.safeParse(parseJson(exchange.text));
    if (!parsed.success) {
      throw new PaymentError('settlement_failed', `supported answered ${excerpt(exchange.text)}`);
    }
    return { kinds: parsed.data.kinds };
  }

  private async exchange(method: 'GET' | 'POST', path: string, body?: FacilitatorRequest): Promise<Exchange> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      const response = await this.fetchImpl(`${this.baseUrl}${path}`, {
        method,
        headers:
          body === undefined
            ? { accept: 'application/json' }
            : { accept: 'application/json', 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        // A redirected POST may become a GET or land on another host; a settlement goes where configured.
        redirect: 'error',
        // The same signal covers the body, so a facilitator that sends headers and then stalls times out too.
        signal: controller.signal,
      });
      const text = await response.text();
      return { kind: 'answered', status: response.status, ok: response.ok, text };
    } catch (error) {
      if (controller.signal.aborted) {
        return {
          kind: 'failed',
          reason: FACILITATOR_FAILURES.timeout,
          message: `${method} ${path} got no answer within ${this.timeoutMs} ms`,
        };
      }
      return {
        kind: 'failed',
        reason: FACILITATOR_FAILURES.unreachable,
        message: `${method} ${path} failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    } finally {
      clearTimeout(timer);
    }
  }
}
