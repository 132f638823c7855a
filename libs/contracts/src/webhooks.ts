import { z } from 'zod';
import { isUuid } from './ids.js';
import { contract } from './contract.js';
import { domainEventCatalog } from './domain-event-catalog.js';
import { httpRoute, routeGroup } from './http.js';
import type { Page } from './page.js';
import { InstantReply, pageOf, reply } from './replies.js';

/** How many webhook subscriptions one agent may hold by default (WEBHOOKS_PER_AGENT_LIMIT; docs/product.md "Webhooks"). */
export const WEBHOOKS_PER_AGENT = 20;
/** How many delivery attempts `GET /webhooks/{id}/deliveries` shows: the latest. */
export const WEBHOOK_ATTEMPTS_SHOWN = 100;
/** How many types one subscription may name. */
export const WEBHOOK_TYPES_MAX = 50;

/**
 * The domain event types an agent may subscribe to: every type of the domain event catalog.
 * A subscription names some of them, or `townhall.<aggregate>.*` for every type of an aggregate
 * (one of WEBHOOK_AGGREGATES): the types a subscription may ever receive are always known here.
 */
export const WEBHOOK_EVENT_TYPES: readonly string[] = Object.keys(domainEventCatalog);

/** The aggregates of WEBHOOK_EVENT_TYPES (`event`, `ticket`, ...): the wildcards allowed. */
export const WEBHOOK_AGGREGATES: readonly string[] = [
  ...new Set(WEBHOOK_EVENT_TYPES.map((type) => type.split('.')[1]!)),
];

/** `townhall.ticket.*` for `townhall.ticket.issued`: the wildcard that also matches a type. */
export function webhookWildcardOf(type: string): string {
  const [prefix, aggregate] = type.split('.');
  return `${prefix}.${aggregate}.*`;
}

const WebhookTypeSchema = z
  .string()
  .max(100)
  .refine(
    (type) =>
      WEBHOOK_EVENT_TYPES.includes(type) ||
      (/^townhall\.[a-z_]+\.\*$/.test(type) && WEBHOOK_AGGREGATES.includes(type.split('.')[1]!)),
    {
      message: `must be a domain event type (townhall.<aggregate>.<verb>) or townhall.<aggregate>.* for one of: ${WEBHOOK_AGGREGATES.join(', ')}`,
    },
  );

/**
 * The transport shape of the URL; the webhooks service decides the rest (https in production,
 * what the host resolves to) and refuses with `webhook.url_refused`.
 */
const WebhookUrlSchema = z
  .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
  .max(2048)
  .refine((url) => !/^[a-z]+:\/\/[^/?#]*@/i.test(url), 'must not carry credentials (user:password@)');

const WebhookIdSchema = z.string().min(1).max(100);
const EventIdOfWebhook = z
  .string()
  .max(100)
  .refine(isUuid, 'must be an event id')
  .transform((id) => id.toLowerCase());

export const CreateWebhookSchema = z.strictObject({
  url: WebhookUrlSchema,
  types: z
    .array(WebhookTypeSchema)
    .min(1, 'name at least one type')
    .max(WEBHOOK_TYPES_MAX)
    .transform((types) => [...new Set(types)]),
  /** Narrows the subscription to the domain events of this one event. */
  eventId: EventIdOfWebhook.nullish(),
});
export type CreateWebhookInput = z.input<typeof CreateWebhookSchema>;

export const WebhookViewSchema = reply(
  z.object({
    id: z.string(),
    url: z.string(),
    types: z.array(z.string()).describe('Domain event types, or `townhall.<aggregate>.*`'),
    eventId: z.string().nullable().describe('Only the domain events of this event; null: every event'),
    createdAt: InstantReply,
  }),
  'Webhook',
  'A webhook subscription: domain events POSTed to `url`, signed with the webhook key',
);
export type WebhookView = z.output<typeof WebhookViewSchema>;
export const WebhookPageSchema = pageOf(WebhookViewSchema, 'Webhook');

export const WEBHOOK_ATTEMPT_OUTCOMES = ['delivered', 'retrying', 'given_up'] as const;

export const WebhookAttemptViewSchema = reply(
  z.object({
    webhookId: z.string().describe('The `webhook-id` header: the CloudEvent id'),
    type: z.string().describe('The domain event type'),
    attempt: z.number().int().describe('1 for the first attempt at this delivery'),
    attemptedAt: InstantReply,
    status: z.number().int().nullable().describe("The receiver's HTTP status; null: no response"),
    durationMs: z.number().int(),
    error: z
      .string()
      .nullable()
      .describe(
        "Why it failed: `HTTP <status>`, a timeout, a refused address... Never the receiver's body, which is not kept",
      ),
    outcome: z
      .enum(WEBHOOK_ATTEMPT_OUTCOMES)
      .describe('`delivered` (2xx), `retrying` (tried again later) or `given_up` (after 24 h)'),
  }),
  'WebhookAttempt',
  'One attempt at delivering a domain event to a webhook',
);
export type WebhookAttemptView = z.output<typeof WebhookAttemptViewSchema>;
export const WebhookAttemptPageSchema = pageOf(WebhookAttemptViewSchema, 'WebhookAttempt');

export const WebhookKeySchema = reply(
  z.object({
    keyId: z.string().describe('A fingerprint of the key: the first 16 hex digits of its SHA-256'),
    publicKey: z
      .string()
      .describe('`whpk_` + the base64 of the raw 32-byte Ed25519 public key (Standard Webhooks)'),
    algorithm: z.literal('ed25519'),
  }),
  'WebhookKey',
  'The public key every webhook delivery is signed with (`webhook-signature: v1a,...`)',
);
export type WebhookKey = z.output<typeof WebhookKeySchema>;

const WebhookRef = z.strictObject({ webhookId: WebhookIdSchema });

export const Webhooks = {
  create: contract<WebhookView>()('webhooks.webhook.create', CreateWebhookSchema),
  list: contract<Page<WebhookView>>()('webhooks.webhook.list', z.strictObject({})),
  delete: contract<WebhookView>()('webhooks.webhook.delete', WebhookRef),
  deliveries: contract<Page<WebhookAttemptView>>()('webhooks.webhook.deliveries', WebhookRef),
  key: contract<WebhookKey>()('webhooks.key.get', z.strictObject({})),
} as const;

const WebhookPath = z.object({ id: WebhookIdSchema.describe('The webhook subscription id') });
const WEBHOOK_CODES = ['webhook.not_found'] as const;

/** Webhooks (docs/product.md "Webhooks", docs/protocol/webhooks.md); owned by the webhooks service. */
export const WebhookRoutes = routeGroup('Webhooks', {
  create: httpRoute({
    contract: Webhooks.create,
    method: 'POST',
    path: '/webhooks',
    rest: 'body',
    signed: true,
    summary: 'Subscribe a URL to domain events',
    description:
      '`{ url, types, eventId? }`: the domain events of these types that the caller may see (every type for the events it hosts; its own tickets, waitlist entries, invites, requests to come and ledger entries; the lifecycle of events it holds a ticket for) are POSTed to `url` as CloudEvents, signed per Standard Webhooks (`v1a`, Ed25519: the key is at `GET /.well-known/townhall/webhook-key`). At most 20 per agent. The URL must be https in production, and its host must not resolve to a private, loopback or link-local address.',
    reply: WebhookViewSchema,
    codes: ['webhook.limit_reached', 'webhook.url_refused'],
  }),
  list: httpRoute({
    contract: Webhooks.list,
    method: 'GET',
    path: '/webhooks',
    rest: 'none',
    signed: true,
    summary: "The caller's webhook subscriptions",
    description: 'Oldest first, all of them (at most 20): `nextCursor` is always null.',
    reply: WebhookPageSchema,
    codes: [],
  }),
  delete: httpRoute({
    contract: Webhooks.delete,
    method: 'DELETE',
    path: '/webhooks/:id',
    fields: { id: 'webhookId' },
    params: WebhookPath,
    rest: 'none',
    signed: true,
    summary: 'Delete a webhook subscription',
    description: 'Its pending deliveries are dropped. Answers the subscription as it was.',
    reply: WebhookViewSchema,
    codes: [...WEBHOOK_CODES],
  }),
  deliveries: httpRoute({
    contract: Webhooks.deliveries,
    method: 'GET',
    path: '/webhooks/:id/deliveries',
    fields: { id: 'webhookId' },
    params: WebhookPath,
    rest: 'none',
    signed: true,
    summary: 'The latest delivery attempts of a webhook',
    description: `The last ${WEBHOOK_ATTEMPTS_SHOWN} attempts, newest first: when, the HTTP status, how long, and why one failed.`,
    reply: WebhookAttemptPageSchema,
    codes: [...WEBHOOK_CODES],
  }),
  key: httpRoute({
    contract: Webhooks.key,
    method: 'GET',
    path: '/.well-known/townhall/webhook-key',
    rest: 'none',
    signed: false,
    summary: 'The public key webhook deliveries are signed with',
    description:
      'Verify `webhook-signature: v1a,<base64>` as an Ed25519 signature of `<webhook-id>.<webhook-timestamp>.<body>` with this key (docs/protocol/webhooks.md).',
    reply: WebhookKeySchema,
    codes: [],
  }),
});
