import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  isUuid,
  WEBHOOK_ATTEMPTS_SHOWN,
  type Page,
  type WebhookAttemptView,
  type WebhookView,
} from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { DestinationRefused, resolveDestination, type Resolver } from '../delivery/destination.js';
import { RESOLVER, SETTINGS, type WebhooksSettings } from '../tokens.js';
import { SubscriptionIndex } from './subscription-index.js';
import {
  ATTEMPT_COLUMNS,
  toAttempt,
  toWebhook,
  WEBHOOK_COLUMNS,
  type AttemptRow,
  type WebhookRow,
} from './webhook-row.js';

/** How long a URL's host may take to resolve when it is subscribed: well within SERVICE_TIMEOUT_MS. */
const RESOLVE_TIMEOUT_MS = 2_000;

export interface WebhookFields {
  url: string;
  types: string[];
  eventId?: string | null | undefined;
}

/** An agent's webhook subscriptions: made, listed, deleted, and their latest attempts. */
@Injectable()
export class WebhookSubscriptions {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(RESOLVER) private readonly resolve: Resolver,
    @Inject(SETTINGS) private readonly settings: WebhooksSettings,
    private readonly index: SubscriptionIndex,
  ) {}

  /**
   * The URL is checked (and its host resolved) first, outside any transaction; then the agent's
   * count and the subscription are written together. The count moves only while it is under
   * WEBHOOKS_PER_AGENT_LIMIT, in the one upsert that checks it (the agent's row is locked by it
   * until the transaction ends), so however many are made at once none goes past the limit.
   */
  async create(agentId: string, fields: WebhookFields): Promise<WebhookView> {
    const url = new URL(fields.url);
    try {
      await resolveDestination(url, this.settings.destinations, this.resolve, RESOLVE_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof DestinationRefused) throw new DomainError('webhook.url_refused', error.message);
      throw error;
    }
    return await this.dataSource.transaction(async (manager) => {
      const counted = await queryRows(
        manager,
        `INSERT INTO webhooks.agent_subscriptions AS a (agent_id, held) VALUES ($1, 1)
         ON CONFLICT (agent_id) DO UPDATE SET held = a.held + 1 WHERE a.held < $2 RETURNING held`,
        [agentId, this.settings.subscriptionsPerAgent],
      );
      if (counted.length === 0) throw limitReached(this.settings.subscriptionsPerAgent);
      const [row] = await queryRows<WebhookRow>(
        manager,
        `INSERT INTO webhooks.subscriptions (id, agent_id, url, types, event_id)
         VALUES ($1, $2, $3, $4, $5) RETURNING ${WEBHOOK_COLUMNS}`,
        [randomUUID(), agentId, url.href, fields.types, fields.eventId ?? null],
      );
      await this.index.adding(manager, fields.types);
      return toWebhook(row!);
    });
  }

  async list(agentId: string): Promise<Page<WebhookView>> {
    const rows = await queryRows<WebhookRow>(
      this.dataSource.manager,
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks.subscriptions WHERE agent_id = $1 ORDER BY created_at, id`,
      [agentId],
    );
    return { items: rows.map(toWebhook), nextCursor: null };
  }

  /** Deletes it with its deliveries (pending ones are never sent) and its attempts. */
  async delete(agentId: string, webhookId: string): Promise<WebhookView> {
    if (!isUuid(webhookId)) throw notFound(webhookId);
    const deleted = await this.dataSource.transaction(async (manager) => {
      const [row] = await queryRows<WebhookRow>(
        manager,
        `DELETE FROM webhooks.subscriptions WHERE id = $1 AND agent_id = $2 RETURNING ${WEBHOOK_COLUMNS}`,
        [webhookId, agentId],
      );
      if (!row) throw notFound(webhookId);
      await manager.query(`UPDATE webhooks.agent_subscriptions SET held = held - 1 WHERE agent_id = $1`, [
        agentId,
      ]);
      await this.index.changed(manager);
      return toWebhook(row);
    });
    this.index.refresh();
    return deleted;
  }

  /** The latest attempts, newest first; another agent's subscription is not found. */
  async attempts(agentId: string, webhookId: string): Promise<Page<WebhookAttemptView>> {
    if (!isUuid(webhookId)) throw notFound(webhookId);
    return this.dataSource.transaction('REPEATABLE READ', async (manager: EntityManager) => {
      const owned = await queryRows(
        manager,
        'SELECT 1 FROM webhooks.subscriptions WHERE id = $1 AND agent_id = $2',
        [webhookId, agentId],
      );
      if (owned.length === 0) throw notFound(webhookId);
      const rows = await queryRows<AttemptRow>(
        manager,
        `SELECT ${ATTEMPT_COLUMNS} FROM webhooks.attempts WHERE subscription_id = $1 ORDER BY id DESC LIMIT $2`,
        [webhookId, WEBHOOK_ATTEMPTS_SHOWN],
      );
      return { items: rows.map(toAttempt), nextCursor: null };
    });
  }
}

/** 409 webhook.limit_reached: the agent holds `limit` subscriptions (WEBHOOKS_PER_AGENT_LIMIT). */
function limitReached(limit: number): DomainError {
  return new DomainError(
    'webhook.limit_reached',
    `An agent may hold ${limit} webhook subscriptions: delete one first`,
  );
}

function notFound(webhookId: string): DomainError {
  return new DomainError('webhook.not_found', `You have no webhook subscription ${webhookId}`);
}
