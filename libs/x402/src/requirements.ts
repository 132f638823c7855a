import { PaymentRequiredV2Schema } from '@x402/core/schemas';
import type { PaymentRequiredV2, PaymentRequirementsV2, ResourceInfo } from '@x402/core/schemas';
import { encodeBase64Json } from './base64-json.js';

/** One way to pay for one tier, in x402 v1 field names (docs/protocol/payments.md "The 402 answer"). */
export interface PaymentRequirements {
  scheme: 'exact';
  network: string;
  /** Integer string of atomic units: exactly the tier price. */
  maxAmountRequired: string;
  asset: string;
  /** The host's agentId. */
  payTo: string;
  /** `<audience>/events/<id>/rsvp?tier=<tierId>`, absolute. */
  resource: string;
  description: string;
  mimeType: string;
  maxTimeoutSeconds: number;
  extra: {
    eventId: string;
    tierId: string;
    /** The host's code the price comes from (docs/product.md "Codes"), when the RSVP sent one. */
    code?: string;
    /** Solana `exact`: the facilitator's key that pays the transaction fee (from its GET /supported). */
    feePayer?: string;
    /** Solana `exact`: the memo the transaction must carry, binding the payment to this event and tier. */
    memo?: string;
  };
}

export interface PaymentRequiredBody {
  x402Version: 1;
  error: string;
  accepts: PaymentRequirements[];
}

// CAIP-2 reference syntax, so `ledger:<environment>` is a network name every x402 v2 parser accepts.
const ENVIRONMENT = /^[-_a-zA-Z0-9]{1,32}$/;

export function ledgerNetwork(environment: string): string {
  if (!ENVIRONMENT.test(environment)) {
    throw new RangeError('an environment name is 1 to 32 characters of A-Z, a-z, 0-9, - and _');
  }
  return `ledger:${environment}`;
}

/**
 * x402 wants at least one accept; an empty list is still returned (not thrown) because this is built on
 * error paths, where a throw would turn a refusal into a 500. The v2 header encoder does refuse it.
 */
export function paymentRequiredBody(error: string, accepts: PaymentRequirements[]): PaymentRequiredBody {
  return { x402Version: 1, error, accepts };
}

/**
 * The x402 v2 form of one accept. v2 moved `resource`, `description` and `mimeType` to the one resource of
 * the whole 402, but each tier has its own resource URL, and a ledger payer must sign exactly that URL; so
 * it also travels in `extra.resource`.
 */
export function toPaymentRequirementsV2(
  requirements: PaymentRequirements,
): PaymentRequirementsV2 & { extra: Record<string, unknown> } {
  return {
    scheme: requirements.scheme,
    network: requirements.network,
    amount: requirements.maxAmountRequired,
    asset: requirements.asset,
    payTo: requirements.payTo,
    maxTimeoutSeconds: requirements.maxTimeoutSeconds,
    extra: { ...requirements.extra, resource: requirements.resource },
  };
}

function withoutQuery(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** v2 has one resource per 402: the URL all accepts share, or, when they differ only by `?tier=`, the path. */
function sharedResource(accepts: PaymentRequirements[]): string {
  const urls = new Set(accepts.map((a) => a.resource));
  const [only] = urls;
  if (urls.size === 1 && only !== undefined) return only;
  const paths = new Set(accepts.map((a) => withoutQuery(a.resource)));
  const [path] = paths;
  if (paths.size === 1 && path !== undefined) return path;
  throw new RangeError('the accepts name different resources; pass the v2 resource explicitly');
}

function shared(values: string[]): string | undefined {
  const distinct = new Set(values);
  return distinct.size === 1 ? values[0] : undefined;
}

export function toPaymentRequiredV2(
  body: PaymentRequiredBody,
  resource?: ResourceInfo,
  extensions?: Record<string, unknown>,
): PaymentRequiredV2 {
  // A 402 that offers no way to pay is a dead end (sold out is 409), and v2 parsers reject it anyway.
  if (body.accepts.length === 0) throw new RangeError('a 402 must offer at least one way to pay');
  const description = shared(body.accepts.map((a) => a.description));
  const mimeType = shared(body.accepts.map((a) => a.mimeType));
  return {
    x402Version: 2,
    error: body.error,
    resource: resource ?? {
      url: sharedResource(body.accepts),
      ...(description === undefined ? {} : { description }),
      ...(mimeType === undefined ? {} : { mimeType }),
    },
    accepts: body.accepts.map(toPaymentRequirementsV2),
    ...(extensions === undefined ? {} : { extensions }),
  };
}

/**
 * Standard base64 of the x402 v2 PaymentRequired for the `PAYMENT-REQUIRED` header. Checked against
 * @x402/core's own v2 schema first: a header that v2 clients cannot parse is a bug here, not there.
 */
export function encodePaymentRequiredHeader(
  body: PaymentRequiredBody,
  resource?: ResourceInfo,
  extensions?: Record<string, unknown>,
): string {
  const v2 = toPaymentRequiredV2(body, resource, extensions);
  const checked = PaymentRequiredV2Schema.safeParse(v2);
  if (!checked.success) {
    throw new RangeError(`not a valid x402 v2 PaymentRequired: ${checked.error.issues[0]?.message ?? ''}`);
  }
  return encodeBase64Json(v2);
}
