import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DomainError, type WebhookView } from '@townhall/contracts';
import { DestinationRefused, resolveDestination, type Resolver } from '@townhall/platform/outbound';
import { queryRows, SETTINGS } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { RESOLVER } from '../destination-resolver.js';
import type { WebhooksSettings } from '../settings.js';
import { SubscriptionIndex } from './subscription-index.js';
import { toWebhook, WEBHOOK_COLUMNS, type WebhookRow } from './webhook-row.js';

/** How long a URL's host may take to resolve when it is subscribed: well within SERVICE_TIMEOUT_MS. */
const RESOLVE_TIMEOUT_MS = 2_000;

export interface WebhookFields {
  url: string;
  types: string[];
  eventId?: string | null | undefined;
}

/**
 * An agent subscribes a URL to domain event types. The URL is checked (and its host resolved)
 * first, outside any transaction; then the agent's count and the subscription are written
 * together. The count moves only while it is under WEBHOOKS_PER_AGENT_LIMIT, in the one upsert
 * that checks it (the agent's row is locked by it until the transaction ends), so however many
 * are made at once none goes past the limit.
 */
@Injectable()
export class CreateWebhook {
  constructor(
    @Inject(SETTINGS) private readonly settings: WebhooksSettings,
    private readonly dataSource: DataSource,
    @Inject(RESOLVER) private readonly resolve: Resolver,
    private readonly index: SubscriptionIndex,
  ) {}

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
}

/** 409 webhook.limit_reached: the agent holds `limit` subscriptions (WEBHOOKS_PER_AGENT_LIMIT). */
function limitReached(limit: number): DomainError {
  return new DomainError(
    'webhook.limit_reached',
    `An agent may hold ${limit} webhook subscriptions: delete one first`,
  );
}
