import { createSchemaDataSource, type PoolSettings } from '@townhall/platform/service';
import type { DataSource } from 'typeorm';
import { CreateWebhooks1765000000000 } from './migrations/1765000000000-create-webhooks.js';
import { AttemptsWithoutAnswers1767300000000 } from './migrations/1767300000000-attempts-without-answers.js';
import { SubscriptionsPerAgentSetting1767400000000 } from './migrations/1767400000000-subscriptions-per-agent-setting.js';

export const WEBHOOKS_SCHEMA = 'webhooks';

export function createWebhooksDataSource(url: string, pool: PoolSettings = {}): DataSource {
  return createSchemaDataSource({
    url,
    schema: WEBHOOKS_SCHEMA,
    entities: [],
    migrations: [
      CreateWebhooks1765000000000,
      AttemptsWithoutAnswers1767300000000,
      SubscriptionsPerAgentSetting1767400000000,
    ],
    pool,
  });
}
