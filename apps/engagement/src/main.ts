import 'reflect-metadata';
import {
  consumeSubscriptions,
  createLogger,
  loadConfig,
  NatsServiceClient,
  required,
  runDomainService,
} from '@townhall/platform/service';
import { EngagementConfigSchema } from './config.js';
import { createEngagementDataSource, ENGAGEMENT_SCHEMA } from './data-source.js';
import { EngagementModule } from './engagement.module.js';
import { EVENT_ENDINGS_CONSUMER, EVENT_SUBJECTS, EventEndings } from './projection/event-endings.js';
import {
  TICKET_ATTENDANCE_CONSUMER,
  TICKET_SUBJECTS,
  TicketAttendance,
} from './projection/ticket-attendance.js';

const config = loadConfig(EngagementConfigSchema);
const logger = createLogger('engagement', config.LOG_LEVEL);
const natsUrl = required(config.NATS_URL, 'NATS_URL');
const dataSource = createEngagementDataSource(
  required(config.DATABASE_URL, 'DATABASE_URL'),
  config.DATABASE_POOL_SIZE,
);
await dataSource.initialize();

// Domain events in and out, and requests to events and ticketing, on a connection of its own.
await runDomainService({
  name: 'engagement',
  natsUrl,
  dataSource,
  schema: ENGAGEMENT_SCHEMA,
  logger,
  probePort: config.PROBE_PORT,
  outboxPollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
  module: ({ nats, relay }) =>
    EngagementModule.register({
      dataSource,
      relay,
      services: new NatsServiceClient(nats, config.SERVICE_TIMEOUT_MS),
      logger,
      settings: {
        pollSweepIntervalMs: config.POLL_SWEEP_INTERVAL_MS,
        questionsPerMinute: config.QUESTIONS_PER_MINUTE,
      },
    }),
  // Durable consumers (one subject filter each: NATS 2.9): what was published while engagement
  // was down is processed when it is back.
  started: async (app, { nats }) => {
    const endings = app.get(EventEndings);
    const attendance = app.get(TicketAttendance);
    return consumeSubscriptions(nats, logger, [
      { durable: EVENT_ENDINGS_CONSUMER, subjects: EVENT_SUBJECTS, handle: (event) => endings.handle(event) },
      {
        durable: TICKET_ATTENDANCE_CONSUMER,
        subjects: TICKET_SUBJECTS,
        handle: (event) => attendance.handle(event),
      },
    ]);
  },
});
