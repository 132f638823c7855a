import { SignatureVerifier } from '@townhall/auth';
import {
  ConfigError,
  domainService,
  openDataSource,
  publicBaseUrlOf,
  type DomainService,
  type Logger,
  type ServiceDefinition,
} from '@townhall/platform/service';
import { TicketingConfigSchema, type TicketingConfig } from './config.js';
import { createTicketingDataSource, TICKETING_SCHEMA } from './data-source.js';
import { openPaymentRails } from './payments/payment-rails.js';
import { TicketingModule } from './ticketing.module.js';

/** The ticketing service, whatever runs it (its own process, or standalone mode). */
async function defineTicketing(
  config: TicketingConfig,
  logger: Logger,
): Promise<Omit<ServiceDefinition, 'name' | 'config'>> {
  if (config.TOWNHALL_ENV === 'production' && config.CLOCK_OFFSET_MS !== 0) {
    throw new ConfigError('Invalid configuration:\n  CLOCK_OFFSET_MS: only for tests, never in production');
  }
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
  return {
    dataSource,
    outbox: { schema: TICKETING_SCHEMA, pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS },
    serviceTimeoutMs: config.SERVICE_TIMEOUT_MS,
    module: ({ relay, services }) =>
      TicketingModule.register({
        dataSource,
        relay,
        services,
        logger,
        signatures: new SignatureVerifier(),
        rails,
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
  };
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
