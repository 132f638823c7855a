import { Injectable } from '@nestjs/common';
import { WEBHOOK_ATTEMPTS_SHOWN } from '@townhall/contracts';
import { Periodic, queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import type { WebhooksConfig } from '../config.js';

const CHUNK = 5_000;

/**
 * Keeps the delivery tables small, on every replica (each statement is safe to run twice): only
 * the latest attempts of each subscription (what GET /webhooks/{id}/deliveries shows),
 * concluded deliveries for a day, the bodies of domain events with deliveries left, and the
 * fan-out's marks of events processed (every domain event leaves one) after 31 days.
 */
@Injectable()
export class DeliveryRetention {
  constructor(private readonly dataSource: DataSource) {}

  /** One pass, every WEBHOOK_RETENTION_INTERVAL_MS; returns how many rows it deleted. */
  @Periodic<WebhooksConfig>({ every: 'WEBHOOK_RETENTION_INTERVAL_MS' })
  async prune(): Promise<number> {
    const manager = this.dataSource.manager;
    const attempts = await queryRows(
      manager,
      `DELETE FROM webhooks.attempts WHERE id IN (
         SELECT id FROM (
           SELECT id, row_number() OVER (PARTITION BY subscription_id ORDER BY id DESC) AS n
             FROM webhooks.attempts) ranked
          WHERE n > $1 LIMIT $2)
       RETURNING id`,
      [WEBHOOK_ATTEMPTS_SHOWN, CHUNK],
    );
    const deliveries = await queryRows(
      manager,
      `DELETE FROM webhooks.deliveries WHERE id IN (
         SELECT id FROM webhooks.deliveries
          WHERE state <> 'pending' AND concluded_at < now() - interval '1 day' LIMIT $1)
       RETURNING id`,
      [CHUNK],
    );
    const messages = await queryRows(
      manager,
      `DELETE FROM webhooks.messages m WHERE m.id IN (
         SELECT id FROM webhooks.messages
          WHERE created_at < now() - interval '1 hour'
            AND NOT EXISTS (SELECT 1 FROM webhooks.deliveries d WHERE d.message_id = webhooks.messages.id)
          LIMIT $1)
       RETURNING id`,
      [CHUNK],
    );
    // The fan-out's dedupe marks, once JetStream (30 days) can no longer hand the event over again.
    const claims = await queryRows(
      manager,
      `DELETE FROM webhooks.processed_events WHERE (consumer, event_id) IN (
         SELECT consumer, event_id FROM webhooks.processed_events
          WHERE processed_at < now() - interval '31 days' LIMIT $1)
       RETURNING event_id`,
      [CHUNK],
    );
    return attempts.length + deliveries.length + messages.length + claims.length;
  }
}
