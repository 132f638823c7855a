import {
  domainService,
  openDataSource,
  type DomainService,
  type Logger,
  type ServiceDefinition,
} from '@townhall/platform/service';
import { EngagementConfigSchema, type EngagementConfig } from './config.js';
import { createEngagementDataSource, ENGAGEMENT_SCHEMA } from './data-source.js';
import { EngagementModule } from './engagement.module.js';
import { EVENTS_CONSUMER, EVENT_SUBJECTS, EventStandings } from './projection/event-standings.js';
import {
  TICKET_ATTENDANCE_CONSUMER,
  TICKET_SUBJECTS,
  TicketAttendance,
} from './projection/ticket-attendance.js';

/** The engagement service, whatever runs it (its own process, or standalone mode). */
async function defineEngagement(
  config: EngagementConfig,
  logger: Logger,
): Promise<Omit<ServiceDefinition, 'name'>> {
  const dataSource = await openDataSource(createEngagementDataSource, config);
  return {
    dataSource,
    outbox: { schema: ENGAGEMENT_SCHEMA, pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS },
    serviceTimeoutMs: config.SERVICE_TIMEOUT_MS,
    module: ({ relay, services }) =>
      EngagementModule.register({
        dataSource,
        relay,
        services,
        logger,
        settings: {
          pollSweepIntervalMs: config.POLL_SWEEP_INTERVAL_MS,
          questionsPerMinute: config.QUESTIONS_PER_MINUTE,
        },
      }),
    // Durable consumers (one subject filter each: NATS 2.9): what was published while engagement
    // was down is processed when it is back.
    subscriptions: (app) => {
      const standings = app.get(EventStandings);
      const attendance = app.get(TicketAttendance);
      return [
        {
          durable: EVENTS_CONSUMER,
          subjects: EVENT_SUBJECTS,
          handle: (event) => standings.handle(event),
        },
        {
          durable: TICKET_ATTENDANCE_CONSUMER,
          subjects: TICKET_SUBJECTS,
          handle: (event) => attendance.handle(event),
          handleBatch: (events) => attendance.handleBatch(events),
        },
      ];
    },
  };
}

/** The engagement service, as its process, its migrate command, standalone mode and its service tests run it. */
export const engagement: DomainService<EngagementConfig> = domainService({
  name: 'engagement',
  schema: ENGAGEMENT_SCHEMA,
  configSchema: EngagementConfigSchema,
  define: defineEngagement,
  dataSource: createEngagementDataSource,
});

export { EngagementConfigSchema, type EngagementConfig } from './config.js';
