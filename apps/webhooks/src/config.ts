import { WEBHOOKS_PER_AGENT } from '@townhall/contracts';
import { BaseConfigSchema, DatabaseConfigSchema, deploymentChecks } from '@townhall/platform/service';
import { z } from 'zod';

const flag = z.enum(['true', 'false']).transform((value) => value === 'true');

export const WebhooksConfigSchema = BaseConfigSchema.extend(DatabaseConfigSchema.shape)
  .extend({
    /** Port of the probe server (/healthz, /readyz, /metrics); unset: none. */
    PROBE_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /**
     * The Ed25519 key every delivery is signed with: `whsk_` + the base64 of its 32-byte seed
     * (Standard Webhooks' serialization). Required in staging and production; elsewhere a key is
     * made up at start (and changes with every start), with a warning. Standalone mode keeps one
     * in its data folder.
     */
    WEBHOOK_SIGNING_KEY: z.string().min(1).optional(),
    /**
     * true: URLs may point at private, loopback and link-local addresses (standalone's default, and
     * the tests' receivers on 127.0.0.1). Never in production.
     */
    WEBHOOK_ALLOW_PRIVATE: flag.default(false),
    /** The wait before the first retry; each later one waits twice as long, up to an hour. */
    WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
    /** How long after a domain event its delivery is retried before it is given up (24 h). */
    WEBHOOK_RETRY_WINDOW_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .max(7 * 86_400_000)
      .default(86_400_000),
    /** How long a receiver has to answer 2xx (resolving its name included). */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /** How often each replica looks for due deliveries (it is also woken when new ones are recorded). */
    WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
    /** The most subscriptions one agent holds at once; the next is refused with 409 webhook.limit_reached. */
    WEBHOOKS_PER_AGENT_LIMIT: z.coerce.number().int().min(1).max(1_000).default(WEBHOOKS_PER_AGENT),
    /** Deliveries one replica attempts at once. */
    WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
    /**
     * true: each replica hears of subscriptions made or deleted on the others by Postgres
     * LISTEN/NOTIFY, on a connection of its own, and keeps the types they take in memory. false
     * only where one replica runs alone (standalone mode: PGlite is one session, without notices).
     */
    WEBHOOK_LISTEN: flag.default(true),
    /** How often each replica prunes delivery history (old attempts, concluded deliveries, spent bodies, old marks). */
    WEBHOOK_RETENTION_INTERVAL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(60_000),
  })
  .superRefine(deploymentChecks);
export type WebhooksConfig = z.output<typeof WebhooksConfigSchema>;
