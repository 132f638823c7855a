import { Injectable } from '@nestjs/common';
import { isUuid, type WebhookView } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { SubscriptionIndex } from './subscription-index.js';
import { toWebhook, WEBHOOK_COLUMNS, webhookNotFound, type WebhookRow } from './webhook-row.js';

/**
 * An agent deletes one of its subscriptions, with its deliveries (pending ones are never sent)
 * and its attempts; its place under WEBHOOKS_PER_AGENT_LIMIT is free again in the same
 * transaction, and every replica reads the types subscribed again once it commits.
 */
@Injectable()
export class DeleteWebhook {
  constructor(
    private readonly dataSource: DataSource,
    private readonly index: SubscriptionIndex,
  ) {}

  async delete(agentId: string, webhookId: string): Promise<WebhookView> {
    if (!isUuid(webhookId)) throw webhookNotFound(webhookId);
    const deleted = await this.dataSource.transaction(async (manager) => {
      const [row] = await queryRows<WebhookRow>(
        manager,
        `DELETE FROM webhooks.subscriptions WHERE id = $1 AND agent_id = $2 RETURNING ${WEBHOOK_COLUMNS}`,
        [webhookId, agentId],
      );
      if (!row) throw webhookNotFound(webhookId);
      await manager.query(`UPDATE webhooks.agent_subscriptions SET held = held - 1 WHERE agent_id = $1`, [
        agentId,
      ]);
      await this.index.changed(manager);
      return toWebhook(row);
    });
    this.index.refresh();
    return deleted;
  }
}
