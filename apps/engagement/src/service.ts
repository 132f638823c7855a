import { domainService, type DomainService } from '@townhall/platform/service';
import { EngagementConfigSchema, type EngagementConfig } from './config.js';
import { createEngagementDataSource, ENGAGEMENT_SCHEMA } from './data-source.js';
import { EngagementModule } from './engagement.module.js';

/** The engagement service, as its process, its migrate command, standalone mode and its service tests run it. */
export const engagement: DomainService<EngagementConfig> = domainService({
  name: 'engagement',
  schema: ENGAGEMENT_SCHEMA,
  configSchema: EngagementConfigSchema,
  dataSource: createEngagementDataSource,
  module: (parts, config) =>
    EngagementModule.register({ ...parts, settings: { questionsPerMinute: config.QUESTIONS_PER_MINUTE } }),
});

export { EngagementConfigSchema, type EngagementConfig } from './config.js';
