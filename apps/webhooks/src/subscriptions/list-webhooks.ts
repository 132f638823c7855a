import { Injectable } from '@nestjs/common';
import type { Page, WebhookView } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { toWebhook, WEBHOOK_COLUMNS, type WebhookRow } from './webhook-row.js';

/** An agent's webhook subscriptions, oldest first, in one page (an agent holds few). */
@Injectable()
export class ListWebhooks {
  constructor(private readonly dataSource: DataSource) {}

  async list(agentId: string): Promise<Page<WebhookView>> {
    const rows = await queryRows<WebhookRow>(
      this.dataSource.manager,
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks.subscriptions WHERE agent_id = $1 ORDER BY created_at, id`,
      [agentId],
    );
    return { items: rows.map(toWebhook), nextCursor: null };
  }
}
