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

/** The engagement service, whatever runs it (its own process, or standalone mode). */
async function defineEngagement(
  config: EngagementConfig,
  logger: Logger,
): Promise<Omit<ServiceDefinition, 'name' | 'config'>> {
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
        settings: { questionsPerMinute: config.QUESTIONS_PER_MINUTE },
      }),
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
