import 'reflect-metadata';
import { SignatureVerifier } from '@townhall/auth';
import {
  ConfigError,
  consumeSubscriptions,
  createLogger,
  loadConfig,
  NatsServiceClient,
  required,
  runDomainService,
} from '@townhall/platform/service';
import { HttpFacilitator, ledgerNetwork } from '@townhall/x402';
import { TicketingConfigSchema } from './config.js';
import { createTicketingDataSource, TICKETING_SCHEMA } from './data-source.js';
import { DomainEventHandler, SUBSCRIPTIONS } from './projection/domain-event-handler.js';
import { TicketingModule } from './ticketing.module.js';

const config = loadConfig(TicketingConfigSchema);
const logger = createLogger('ticketing', config.LOG_LEVEL);
const natsUrl = required(config.NATS_URL, 'NATS_URL');
if (config.X402_FACILITATOR === 'http' && (!config.X402_FACILITATOR_URL || !config.X402_NETWORK)) {
  throw new ConfigError(
    'Invalid configuration:\n  X402_FACILITATOR_URL, X402_NETWORK: required when X402_FACILITATOR=http',
  );
}
const dataSource = createTicketingDataSource(
  required(config.DATABASE_URL, 'DATABASE_URL'),
  config.DATABASE_POOL_SIZE,
);
await dataSource.initialize();

// Domain events in and out, and requests to other services, on a connection of its own.
await runDomainService({
  name: 'ticketing',
  natsUrl,
  dataSource,
  schema: TICKETING_SCHEMA,
  logger,
  probePort: config.PROBE_PORT,
  outboxPollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
  module: ({ nats, relay }) =>
    TicketingModule.register({
      dataSource,
      relay,
      services: new NatsServiceClient(nats, config.SERVICE_TIMEOUT_MS),
      logger,
      signatures: new SignatureVerifier(),
      facilitator:
        config.X402_FACILITATOR === 'http' ? new HttpFacilitator(config.X402_FACILITATOR_URL!) : null,
      settings: {
        environment: config.TOWNHALL_ENV,
        publicBaseUrl: config.PUBLIC_BASE_URL,
        faucet: config.LEDGER_FAUCET,
        facilitator: config.X402_FACILITATOR,
        network:
          config.X402_FACILITATOR === 'ledger' ? ledgerNetwork(config.TOWNHALL_ENV) : config.X402_NETWORK!,
        paymentTimeoutSeconds: config.PAYMENT_TIMEOUT_SECONDS,
      },
    }),
  // Durable consumers: what was published while ticketing was down is processed when it is back.
  started: async (app, { nats }) => {
    const handler = app.get(DomainEventHandler);
    return consumeSubscriptions(
      nats,
      logger,
      SUBSCRIPTIONS.map((subscription) => ({ ...subscription, handle: (event) => handler.handle(event) })),
    );
  },
});
