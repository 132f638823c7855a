import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How many subscriptions an agent may hold becomes a setting (WEBHOOKS_PER_AGENT_LIMIT, 20 by
 * default) instead of the check constraint's fixed 20: the count is still moved in the same
 * statement that checks it (webhook-subscriptions.ts, a conditional upsert on the agent's row),
 * so two subscriptions made at once still cannot both take the last place. The row keeps a
 * lower bound of its own.
 */
export class SubscriptionsPerAgentSetting1767400000000 implements MigrationInterface {
  name = 'SubscriptionsPerAgentSetting1767400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE webhooks.agent_subscriptions DROP CONSTRAINT agent_subscriptions_limit,
         ADD CONSTRAINT agent_subscriptions_held CHECK (held >= 0)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE webhooks.agent_subscriptions DROP CONSTRAINT agent_subscriptions_held,
         ADD CONSTRAINT agent_subscriptions_limit CHECK (held BETWEEN 0 AND 20)`,
    );
  }
}
