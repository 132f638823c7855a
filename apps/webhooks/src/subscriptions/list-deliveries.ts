import { Injectable } from '@nestjs/common';
import { isUuid, WEBHOOK_ATTEMPTS_SHOWN, type Page, type WebhookAttemptView } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { ATTEMPT_COLUMNS, toAttempt, webhookNotFound, type AttemptRow } from './webhook-row.js';

/**
 * The latest delivery attempts of one of the agent's subscriptions, newest first (at most
 * WEBHOOK_ATTEMPTS_SHOWN, what DeliveryRetention keeps); another agent's subscription is not found.
 */
@Injectable()
export class ListDeliveries {
  constructor(private readonly dataSource: DataSource) {}

  async list(agentId: string, webhookId: string): Promise<Page<WebhookAttemptView>> {
    if (!isUuid(webhookId)) throw webhookNotFound(webhookId);
    return this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      const owned = await queryRows(
        manager,
        'SELECT 1 FROM webhooks.subscriptions WHERE id = $1 AND agent_id = $2',
        [webhookId, agentId],
      );
      if (owned.length === 0) throw webhookNotFound(webhookId);
      const rows = await queryRows<AttemptRow>(
        manager,
        `SELECT ${ATTEMPT_COLUMNS} FROM webhooks.attempts WHERE subscription_id = $1 ORDER BY id DESC LIMIT $2`,
        [webhookId, WEBHOOK_ATTEMPTS_SHOWN],
      );
      return { items: rows.map(toAttempt), nextCursor: null };
    });
  }
}
