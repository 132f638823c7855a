import { BaseConfigSchema, DatabaseConfigSchema } from '@townhall/platform/service';
import { z } from 'zod';

const flag = z.enum(['true', 'false']).transform((value) => value === 'true');

export const TicketingConfigSchema = BaseConfigSchema.extend(DatabaseConfigSchema.shape).extend({
  PROBE_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** The gateway's public origin: the x402 `resource` URLs are absolute under it. */
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .transform((value) => value.replace(/\/+$/, ''))
    .default('http://localhost:3000'),
  /** `POST /ledger/faucet` exists only where this is true (standalone and test environments). */
  LEDGER_FAUCET: flag.default(false),
  X402_FACILITATOR: z.enum(['ledger', 'http']).default('ledger'),
  X402_FACILITATOR_URL: z.url().optional(),
  /** The x402 network the http facilitator settles on, e.g. solana-devnet. */
  X402_NETWORK: z.string().min(1).max(100).optional(),
  /**
   * How long the http facilitator has to answer /verify, and again /settle. Both together must
   * fit in SERVICE_TIMEOUT_MS, so that the buyer hears the outcome (or that it is pending).
   */
  X402_FACILITATOR_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  /** How often payments still settling at the http facilitator are asked about again. */
  SETTLEMENT_RETRY_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(1_000),
  /** How long a signed payment authorization may be valid (x402 maxTimeoutSeconds). */
  PAYMENT_TIMEOUT_SECONDS: z.coerce.number().int().min(10).max(3600).default(300),
  OUTBOX_POLL_INTERVAL_MS: z.coerce.number().int().min(10).default(500),
  /** How often waitlist offers that ran out are expired and their seats passed on. */
  WAITLIST_SWEEP_INTERVAL_MS: z.coerce.number().int().min(50).max(600_000).default(1_000),
  /**
   * Tests only (refused in production): the service's clock runs this far ahead of the machine's,
   * so that a test can let a waitlist offer run out by restarting the service with it.
   */
  CLOCK_OFFSET_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(366 * 24 * 3_600_000)
    .default(0),
});
export type TicketingConfig = z.output<typeof TicketingConfigSchema>;
