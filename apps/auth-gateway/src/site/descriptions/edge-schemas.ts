import {
  PROBLEM_CODES,
  reply,
  CloudEventSchema,
  type CloudEvent,
  type FieldError,
  type ProblemCode,
  type SettlementView,
  type TicketReply,
} from '@townhall/contracts';
import type { LedgerPayload, PaymentRequiredBody, PaymentRequirements } from '@townhall/x402';
import { z } from 'zod';
import type { Problem } from '../../problem/problem.js';

/*
 * What only the edge answers, as zod schemas for the OpenAPI document: problem+json, the x402
 * payment headers and the live stream's CloudEvents (the probes' are in health/health-schemas.ts).
 * The services' replies have their schemas in @townhall/contracts (their types are `z.output` of
 * them). These types are declared where they are used (the gateway, @townhall/x402,
 * @townhall/contracts), so `EdgeSchemaChecks` below fails to compile if a schema and its type
 * differ in any field.
 */

// ---- problem+json (docs/protocol/errors.md section 3) ----

const PROBLEM_CODE_LIST = Object.keys(PROBLEM_CODES) as [ProblemCode, ...ProblemCode[]];

export const FieldErrorSchema = reply(
  z.object({
    field: z.string().describe('A dotted path into the body or query, or `(body)`'),
    message: z.string(),
  }),
  'FieldError',
);

export const ProblemSchema = reply(
  z.object({
    type: z.string().describe('`<server>/docs/errors/<code>`'),
    title: z.string().describe("The code's fixed title"),
    status: z.number().int(),
    detail: z.string().describe('What went wrong in this request, in words'),
    code: z.enum(PROBLEM_CODE_LIST).describe('Stable: switch on this'),
    requestId: z.string().describe('Also in the `x-request-id` header'),
    errors: z.array(FieldErrorSchema).optional().describe('Validation failures only: one entry per field'),
  }),
  'Problem',
);

// ---- x402 (docs/protocol/payments.md section 4) ----

export const PaymentRequirementsSchema = reply(
  z.object({
    scheme: z.literal('exact'),
    network: z.string().describe('`ledger:<environment>` on the built-in ledger'),
    maxAmountRequired: z.string().describe("Integer string of atomic units: exactly the tier's price"),
    asset: z.string(),
    payTo: z.string().describe("The host's agentId"),
    resource: z.string().describe('`<server>/events/<id>/rsvp?tier=<tierId>`: sign exactly this'),
    description: z.string(),
    mimeType: z.string(),
    maxTimeoutSeconds: z.number().int(),
    extra: z.object({ eventId: z.string(), tierId: z.string() }),
  }),
  'PaymentRequirements',
  'One way to pay for one tier (x402 v1 field names)',
);

export const PaymentRequiredSchema = reply(
  z.object({
    x402Version: z.literal(1),
    error: z
      .string()
      .describe(
        'Why no payment was accepted: `X-PAYMENT header is required`, or the x402 reason, e.g. `amount_mismatch`',
      ),
    accepts: z.array(PaymentRequirementsSchema).describe('One entry per tier that still has a seat'),
  }),
  'PaymentRequired',
  'The x402 v1 PaymentRequired members of a 402 problem',
);

export const LedgerPaymentSchema = reply(
  z.object({
    x402Version: z.literal(1),
    scheme: z.literal('exact'),
    network: z.string(),
    payload: z.object({
      signature: z
        .string()
        .describe(
          'base58 Ed25519 signature by `from` over these lines joined by LF: `x402-ledger-v1`, network, from, to, value, asset, resource, validAfter, validBefore, nonce',
        ),
      authorization: z.object({
        from: z.string().describe('The signed caller'),
        to: z.string().describe('`payTo`'),
        value: z.string().describe('`maxAmountRequired`'),
        asset: z.string(),
        resource: z.string(),
        validAfter: z.string().describe('Unix seconds'),
        validBefore: z.string().describe('Unix seconds'),
        nonce: z.string().describe('32 random bytes, lower-case hex; each works once'),
      }),
    }),
  }),
  'LedgerPayment',
  'The JSON that X-PAYMENT carries (standard base64) for the built-in ledger facilitator',
);

export const PaymentResponseSchema = reply(
  z.object({
    success: z.boolean(),
    transaction: z
      .string()
      .describe('The EVENT_TICKET ledger entry id (ledger) or the chain transaction (http)'),
    network: z.string(),
    payer: z.string(),
    extensions: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'x402 v2 extensions of the answer: `offer-receipt`, the receipt the service signed (JWS; its key in `GET /.well-known/jwks.json`)',
      ),
  }),
  'PaymentResponse',
  'The JSON that X-PAYMENT-RESPONSE and PAYMENT-RESPONSE carry (standard base64)',
);

// ---- live stream ----

// The envelope is the services' (libs/contracts domain-events.ts): the AsyncAPI document shows it too.
export { CloudEventSchema };

/** Assignable both ways and with the same keys (an extra optional field would pass the first test). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? SameKeys<A, B> : false) : false;
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
type Expect<T extends true> = T;

/** Fails to compile when a schema above no longer matches its contract type. */
export type EdgeSchemaChecks = [
  Expect<Same<z.output<typeof FieldErrorSchema>, FieldError>>,
  Expect<Same<z.output<typeof ProblemSchema>, Problem>>,
  Expect<Same<z.output<typeof PaymentRequirementsSchema>, PaymentRequirements>>,
  Expect<Same<z.output<typeof PaymentRequiredSchema>, PaymentRequiredBody>>,
  Expect<Same<z.output<typeof LedgerPaymentSchema>['payload'], LedgerPayload>>,
  Expect<
    Same<
      z.output<typeof PaymentResponseSchema>,
      SettlementView & { extensions?: TicketReply['paymentExtensions'] }
    >
  >,
  Expect<Same<z.output<typeof CloudEventSchema>, CloudEvent>>,
];
