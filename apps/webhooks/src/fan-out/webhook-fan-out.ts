import { Injectable } from '@nestjs/common';
import { webhookWildcardOf, type DomainEvent, type DomainEventOf } from '@townhall/contracts';
import { claimEventsOnce, OnDomainEvent, queryRows } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { WEBHOOKS_SCHEMA } from '../data-source.js';
import { DeliveryWorker } from '../delivery/delivery-worker.js';
import { SubscriptionIndex } from '../subscriptions/subscription-index.js';
import { fanOutEvents } from '../webhooks-metrics.js';
import { audienceOf, type AudienceFacts } from './audience.js';
import { applyProjections, projectionsOf } from './projections.js';

export const FAN_OUT_CONSUMER = 'webhooks-fan-out';
/** How long a fan-out batch waits for more events after its first. */
const FAN_OUT_GATHER_MS = 20;

/**
 * A subscription takes the domain events that happened after it was made. Their `time` comes from
 * another service's clock, in milliseconds: a second's grace keeps an event of the same moment
 * (or of a clock slightly behind) from being lost. The audience rules still decide who sees it.
 */
const CLOCK_GRACE = '1 second';

/**
 * Turns domain events into deliveries. An event no subscription takes (SubscriptionIndex, in
 * memory) costs no database work, unless it feeds a projection (event hosts, series hosts, live
 * tickets: who may see what later), which is then one idempotent upsert. Every other event,
 * exactly once (claimEventsOnce, in the same transaction): first the projections it feeds, then
 * its audience (audience.ts), then one delivery row per subscription of that audience that takes
 * its type (exact, or `townhall.<aggregate>.*`), of its event when the subscription names one,
 * and that existed when it happened (CLOCK_GRACE). The delivery worker is woken once the rows are committed.
 */
@Injectable()
export class WebhookFanOut {
  constructor(
    private readonly dataSource: DataSource,
    private readonly worker: DeliveryWorker,
    private readonly index: SubscriptionIndex,
  ) {}

  /**
   * Every domain event, on one durable consumer (one subject: NATS 2.9 filters one per consumer),
   * in batches gathered for up to FAN_OUT_GATHER_MS: a delivery is that much later, and a busy
   * stream costs one pass per batch instead of per event. Paused while there is no subscription
   * at all (the SubscriptionIndex is its gate): no write then costs this service anything.
   */
  @OnDomainEvent('townhall.>', {
    durable: FAN_OUT_CONSUMER,
    batch: true,
    gatherMs: FAN_OUT_GATHER_MS,
    gate: SubscriptionIndex,
  })
  async recordDeliveries(events: Array<DomainEventOf<'townhall.>'>>): Promise<void> {
    const taken = events.filter((event) => this.index.mayTake(event.type));
    fanOutEvents.inc({ path: 'passed' }, events.length - taken.length);
    if (taken.length === 0) {
      // Nobody to deliver to: only what the projections need, one statement each at most.
      await applyProjections(this.dataSource.manager, projectionsOf(events));
      return;
    }
    fanOutEvents.inc({ path: 'recorded' }, taken.length);
    const takenIds = new Set(taken.map((event) => event.id));
    const recorded = await this.dataSource.transaction(async (manager) => {
      const fresh = await claimEventsOnce(manager, WEBHOOKS_SCHEMA, FAN_OUT_CONSUMER, [...takenIds]);
      let deliveries = 0;
      // In stream order: a ticket's projection is current for the event that follows it.
      for (const event of events) {
        const mayDeliver = takenIds.has(event.id);
        if (mayDeliver && !fresh.delete(event.id)) continue;
        await applyProjections(manager, projectionsOf([event]));
        if (mayDeliver) deliveries += await fanOut(manager, event);
      }
      return deliveries;
    });
    if (recorded > 0) this.worker.wake();
  }
}

/** Records the deliveries of one event; returns how many. */
async function fanOut(manager: EntityManager, event: DomainEvent): Promise<number> {
  const { eventId, agents } = await audienceOf(event, factsIn(manager));
  if (agents.length === 0) return 0;
  const subscriptions = await queryRows<{ id: string }>(
    manager,
    `SELECT id FROM webhooks.subscriptions
      WHERE agent_id = ANY($1::text[])
        AND ($2 = ANY(types) OR $3 = ANY(types))
        AND (event_id IS NULL OR event_id = $4)
        AND created_at <= $5::timestamptz + interval '${CLOCK_GRACE}'`,
    [agents, event.type, webhookWildcardOf(event.type), eventId, event.time],
  );
  if (subscriptions.length === 0) return 0;
  // The body is fixed here, once: every attempt sends (and signs) these very bytes.
  await manager.query(
    `INSERT INTO webhooks.messages (id, type, body) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`,
    [event.id, event.type, JSON.stringify(event)],
  );
  const inserted = await queryRows(
    manager,
    `INSERT INTO webhooks.deliveries (subscription_id, message_id)
     SELECT id, $2 FROM unnest($1::uuid[]) AS s(id)
     ON CONFLICT (subscription_id, message_id) DO NOTHING RETURNING id`,
    [subscriptions.map((subscription) => subscription.id), event.id],
  );
  return inserted.length;
}

function factsIn(manager: EntityManager): AudienceFacts {
  return {
    hostOfEvent: async (eventId) =>
      (
        await queryRows<{ host_id: string }>(
          manager,
          'SELECT host_id FROM webhooks.event_hosts WHERE event_id = $1',
          [eventId],
        )
      )[0]?.host_id,
    hostOfSeries: async (seriesId) =>
      (
        await queryRows<{ host_id: string }>(
          manager,
          'SELECT host_id FROM webhooks.series_hosts WHERE series_id = $1',
          [seriesId],
        )
      )[0]?.host_id,
    ticketHolders: async (eventId) =>
      (
        await queryRows<{ holder_id: string }>(
          manager,
          'SELECT DISTINCT holder_id FROM webhooks.tickets WHERE event_id = $1 AND live',
          [eventId],
        )
      ).map((row) => row.holder_id),
  };
}
