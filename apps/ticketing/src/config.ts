import {
  DomainServiceConfigSchema,
  deploymentChecks,
  publicBaseUrlRequired,
  PublicBaseUrlSchema,
} from '@townhall/platform/service';
import { z } from 'zod';

const flag = z.enum(['true', 'false']).transform((value) => value === 'true');

export const TicketingConfigSchema = DomainServiceConfigSchema.extend({
  /** The gateway's public origin: the x402 `resource` URLs are absolute under it (publicBaseUrlOf). */
  PUBLIC_BASE_URL: PublicBaseUrlSchema,
  /**
   * `POST /ledger/faucet` exists only where this is true (standalone and test environments); never
   * in production (deploymentChecks below).
   */
  LEDGER_FAUCET: flag.default(false),
  /** The most one faucet call mints, in atomic units (1,000,000 is 1 USDC); more is 422. */
  LEDGER_FAUCET_MAX_AMOUNT: z.coerce
    .bigint()
    .min(1n)
    .max(10n ** 21n - 1n)
    .default(1_000_000n),
  /** Faucet calls one agent may make in any hour, on every replica together; the next is 429. */
  LEDGER_FAUCET_CALLS_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(10),
  /**
   * `ledger` (the service's own balances), `http` (any x402 facilitator at X402_FACILITATOR_URL) or
   * `solana-local` (a Solana runtime in this process, settled by @x402/svm's own facilitator scheme).
   */
  X402_FACILITATOR: z.enum(['ledger', 'http', 'solana-local']).default('ledger'),
  X402_FACILITATOR_URL: z.url().optional(),
  /**
   * The CAIP-2 network the facilitator settles on: `solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1`
   * (devnet), `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp` (mainnet). solana-local answers as devnet.
   * Only networks whose payments this service reads itself: a payment is bound to its signer,
   * event, tier, price and memo before any facilitator sees it on `solana:`, and the ledger
   * checks its own; a payment on any other network would be the facilitator's word alone.
   */
  X402_NETWORK: z
    .string()
    .regex(
      /^(ledger|solana):[-_a-zA-Z0-9]{1,32}$/,
      'must be ledger:<environment> or solana:<genesis hash> (CAIP-2), e.g. solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1: payments are bound to their payer, event and tier on these networks only',
    )
    .optional(),
  /** The SPL mint prices are paid in on Solana; defaults to Circle's USDC of X402_NETWORK. */
  X402_ASSET: z
    .string()
    .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'must be a base58 SPL mint address')
    .optional(),
  /**
   * Solana JSON-RPC the service reads the chain through, to conclude a payment its facilitator
   * left undecided: the network's public endpoint by default, solana-local's own in that mode.
   */
  X402_RPC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** solana-local: the port of its Solana JSON-RPC on 127.0.0.1 (8899, as solana-test-validator; 0: any free one). */
  SOLANA_LOCAL_RPC_PORT: z.coerce.number().int().min(0).max(65535).default(8899),
  /** solana-local: the file its state is kept in; absent, the chain is ephemeral (gone at exit). */
  SOLANA_LOCAL_STATE: z.string().min(1).max(4096).optional(),
  /** solana-local: how long a blockhash can land a transaction (about a minute on Solana). */
  SOLANA_LOCAL_BLOCKHASH_LIFETIME_MS: z.coerce.number().int().min(1_000).max(600_000).default(60_000),
  /**
   * How long the http facilitator has to answer /verify, and again /settle. Both together must
   * fit in SERVICE_TIMEOUT_MS, so that the buyer hears the outcome (or that it is pending).
   */
  X402_FACILITATOR_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  /** How often payments still settling at the http facilitator are asked about again. */
  SETTLEMENT_RETRY_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(1_000),
  /**
   * The service's Ed25519 key for x402 offers and receipts (docs/protocol/payments.md "The
   * receipt"): the base64 of a 32-byte seed (`openssl rand -base64 32`). Required in production
   * (service.ts): receipts signed by a key made up at each start verify against nothing a day later.
   */
  RECEIPT_SIGNING_KEY: z.string().min(1).max(200).optional(),
  /** Its `kid` in the JWS header and the published set; by default its RFC 7638 thumbprint. */
  RECEIPT_SIGNING_KEY_ID: z
    .string()
    .regex(/^[\x21-\x7e]{1,128}$/, 'must be 1 to 128 printable ASCII characters')
    .optional(),
  /**
   * The older public keys still published beside the current one, so that receipts they signed
   * still verify after a rotation: a JSON JWK set, e.g. `/.well-known/jwks.json` as it was.
   */
  RECEIPT_PUBLISHED_KEYS: z.string().min(1).max(65_536).optional(),
  /** How long a signed payment authorization may be valid (x402 maxTimeoutSeconds). */
  PAYMENT_TIMEOUT_SECONDS: z.coerce.number().int().min(10).max(3600).default(300),
  OUTBOX_POLL_INTERVAL_MS: z.coerce.number().int().min(10).default(500),
  /** How often waitlist offers that ran out are expired and their seats passed on. */
  WAITLIST_SWEEP_INTERVAL_MS: z.coerce.number().int().min(50).max(600_000).default(1_000),
  /**
   * How often series followers are seated in an occurrence that became its series' next one (the
   * one before it started): followers get its seats at most this late.
   */
  FOLLOWER_SEATING_INTERVAL_MS: z.coerce.number().int().min(50).max(600_000).default(60_000),
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
})
  .superRefine(deploymentChecks)
  .superRefine(publicBaseUrlRequired)
  .superRefine((config, context) => {
    // Money from nothing, and a paid seat bought with it credits its host: never where money is real.
    if (config.LEDGER_FAUCET && config.TOWNHALL_ENV === 'production')
      context.addIssue({
        code: 'custom',
        path: ['LEDGER_FAUCET'],
        message:
          'must not be true when TOWNHALL_ENV=production: the faucet mints money from nothing, and a seat bought with it pays its host',
      });
    // A facilitator settles on chain; the ledger's network is the ledger's own (X402_FACILITATOR=ledger).
    if (config.X402_FACILITATOR !== 'ledger' && config.X402_NETWORK?.startsWith('ledger:'))
      context.addIssue({
        code: 'custom',
        path: ['X402_NETWORK'],
        message: `X402_FACILITATOR=${config.X402_FACILITATOR} settles on a solana: network; ledger: networks are X402_FACILITATOR=ledger's`,
      });
  });
export type TicketingConfig = z.output<typeof TicketingConfigSchema>;
