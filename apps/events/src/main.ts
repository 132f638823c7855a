import 'reflect-metadata';
import {
  consumeSubscriptions,
  createLogger,
  loadConfig,
  required,
  runDomainService,
} from '@townhall/platform/service';
import { EventsConfigSchema } from './config.js';
import { createEventsDataSource, EVENTS_SCHEMA } from './data-source.js';
import { EventsModule } from './events.module.js';
import { COUNT_SUBSCRIPTIONS, EventCounts } from './counts/event-counts.js';

const config = loadConfig(EventsConfigSchema);
const logger = createLogger('events', config.LOG_LEVEL);
const natsUrl = required(config.NATS_URL, 'NATS_URL');
const dataSource = createEventsDataSource(
  required(config.DATABASE_URL, 'DATABASE_URL'),
  config.DATABASE_POOL_SIZE,
);
await dataSource.initialize();

await runDomainService({
  name: 'events',
  natsUrl,
  dataSource,
  schema: EVENTS_SCHEMA,
  logger,
  probePort: config.PROBE_PORT,
  outboxPollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
  relay: config.OUTBOX_RELAY === 'on',
  module: ({ relay }) =>
    EventsModule.register({
      dataSource,
      relay,
      logger,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      seriesExtendIntervalMs: config.SERIES_EXTEND_INTERVAL_MS,
    }),
  // Counts come from other services' domain events (durable: caught up after a restart).
  started: async (app, { nats }) => {
    const counts = app.get(EventCounts);
    return consumeSubscriptions(
      nats,
      logger,
      COUNT_SUBSCRIPTIONS.map((subscription) => ({
        ...subscription,
        handle: (event) => counts.handle(event),
      })),
    );
  },
});
