import { SignatureVerifier } from '@townhall/auth';
import {
  ConfigError,
  domainService,
  openDataSource,
  publicBaseUrlOf,
  type DomainService,
  type Logger,
  type ServiceDefinition,
  withOutbox,
} from '@townhall/platform/service';
import {
  parsePublishedKeys,
  ReceiptKeyError,
  receiptKeySet,
  ReceiptSigner,
  type ReceiptPublicKey,
} from '@townhall/x402/extensions';
import { TicketingConfigSchema, type TicketingConfig } from './config.js';
import { createTicketingDataSource, TICKETING_SCHEMA } from './data-source.js';
import { openPaymentRails } from './payments/payment-rails.js';
import { TicketingModule } from './ticketing.module.js';
import type { ReceiptKeys } from './tokens.js';

/** The ticketing service, whatever runs it (its own process, or standalone mode). */
async function defineTicketing(
  config: TicketingConfig,
  logger: Logger,
): Promise<Omit<ServiceDefinition, 'name' | 'config'>> {
  if (config.TOWNHALL_ENV === 'production' && config.CLOCK_OFFSET_MS !== 0) {
    throw new ConfigError('Invalid configuration:\n  CLOCK_OFFSET_MS: only for tests, never in production');
  }
  // Before anything is opened: a missing or broken key ends the start at once.
  const receiptKeys = receiptKeysOf(config, logger);
  const dataSource = await openDataSource(createTicketingDataSource, config);
  let rails;
  try {
    rails = await openPaymentRails(config, logger);
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  if (rails.local) {
    logger.info(
      { rpcUrl: rails.local.rpcUrl, network: rails.network, mint: rails.local.chain.mint },
      'solana-local: a Solana runtime in this process; its JSON-RPC is at rpcUrl',
    );
  }
  const offset = config.CLOCK_OFFSET_MS;
  return withOutbox(config, TICKETING_SCHEMA, dataSource, (link) =>
    TicketingModule.register({
      dataSource,
      logger,
      ...link,
      signatures: new SignatureVerifier(),
      rails,
      receiptKeys,
      settings: {
        environment: config.TOWNHALL_ENV,
        publicBaseUrl: publicBaseUrlOf(config),
        faucet: config.LEDGER_FAUCET,
        faucetMaxAmount: config.LEDGER_FAUCET_MAX_AMOUNT,
        faucetCallsPerHour: config.LEDGER_FAUCET_CALLS_PER_HOUR,
        facilitator: config.X402_FACILITATOR,
        network: rails.network,
        asset: rails.asset,
        paymentTimeoutSeconds: config.PAYMENT_TIMEOUT_SECONDS,
        facilitatorTimeoutMs: config.X402_FACILITATOR_TIMEOUT_MS,
        admissionWaitMs: config.DATABASE_POOL_WAIT_MS,
      },
      ...(offset === 0 ? {} : { clock: () => new Date(Date.now() + offset) }),
    }),
  );
}

/**
 * The key x402 offers and receipts are signed with (RECEIPT_SIGNING_KEY), and the set published
 * with it (RECEIPT_PUBLISHED_KEYS). Required in production: a receipt is a buyer's proof of
 * purchase, and one signed by a key made up at this start verifies against nothing after the next.
 */
function receiptKeysOf(config: TicketingConfig, logger: Logger): ReceiptKeys {
  let signer: ReceiptSigner;
  let older: ReceiptPublicKey[] = [];
  try {
    if (config.RECEIPT_SIGNING_KEY !== undefined) {
      signer = ReceiptSigner.fromSeed(config.RECEIPT_SIGNING_KEY, config.RECEIPT_SIGNING_KEY_ID);
    } else if (config.TOWNHALL_ENV === 'production') {
      throw new ConfigError(
        'Invalid configuration:\n  RECEIPT_SIGNING_KEY: required in production (the base64 of a 32-byte Ed25519 seed: openssl rand -base64 32)',
      );
    } else {
      signer = ReceiptSigner.generate().signer;
      logger.warn(
        { kid: signer.kid },
        'RECEIPT_SIGNING_KEY is not set: x402 offers and receipts are signed with a key made up for this process (it changes at every start, and differs between replicas)',
      );
    }
  } catch (error) {
    if (error instanceof ReceiptKeyError)
      throw new ConfigError(`Invalid configuration:\n  RECEIPT_SIGNING_KEY: ${error.message}`);
    throw error;
  }
  try {
    if (config.RECEIPT_PUBLISHED_KEYS !== undefined)
      older = parsePublishedKeys(config.RECEIPT_PUBLISHED_KEYS);
  } catch (error) {
    if (error instanceof ReceiptKeyError)
      throw new ConfigError(`Invalid configuration:\n  RECEIPT_PUBLISHED_KEYS: ${error.message}`);
    throw error;
  }
  return { signer, published: receiptKeySet(signer.publicKey, older) };
}

/** The ticketing service, as its process, its migrate command, standalone mode and its service tests run it. */
export const ticketing: DomainService<TicketingConfig> = domainService({
  name: 'ticketing',
  schema: TICKETING_SCHEMA,
  configSchema: TicketingConfigSchema,
  define: defineTicketing,
  dataSource: createTicketingDataSource,
});

export { TicketingConfigSchema, type TicketingConfig } from './config.js';
