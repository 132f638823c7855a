import { Injectable } from '@nestjs/common';
import {
  EventTopics,
  SeriesTopics,
  TicketTopics,
  webhookWildcardOf,
  type CloudEvent,
} from '@townhall/contracts';
import { claimEventsOnce, OnDomainEvent, queryRows } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import { WEBHOOKS_SCHEMA } from '../data-source.js';
import { DeliveryWorker } from '../delivery/delivery-worker.js';
import { SubscriptionIndex } from '../subscriptions/subscription-index.js';
import { fanOutEvents } from '../webhooks-metrics.js';
import { audienceOf, type AudienceFacts } from './audience.js';

export const FAN_OUT_CONSUMER = 'webhooks-fan-out';

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

  /** Every domain event, on one durable consumer (one subject: NATS 2.9 filters one per consumer). */
  @OnDomainEvent('townhall.>', { durable: FAN_OUT_CONSUMER, batch: true })
  async recordDeliveries(events: CloudEvent[]): Promise<void> {
    const taken = events.filter((event) => this.index.mayTake(event.type));
    fanOutEvents.inc({ path: 'passed' }, events.length - taken.length);
    if (taken.length === 0) {
      // Nobody to deliver to: only what the projections need, in stream order.
      for (const event of events) await project(this.dataSource.manager, event);
      return;
    }
    fanOutEvents.inc({ path: 'recorded' }, taken.length);
    const recorded = await this.dataSource.transaction(async (manager) => {
      const fresh = await claimEventsOnce(
        manager,
        WEBHOOKS_SCHEMA,
        FAN_OUT_CONSUMER,
        taken.map((event) => event.id),
      );
      let deliveries = 0;
      // In stream order: a ticket's projection is current for the event that follows it.
      for (const event of events) {
        const mayDeliver = taken.includes(event);
        if (mayDeliver && !fresh.delete(event.id)) continue;
        await project(manager, event);
        if (mayDeliver) deliveries += await fanOut(manager, event);
      }
      return deliveries;
    });
    if (recorded > 0) this.worker.wake();
  }
}

/**
 * Feeds the projections audience.ts reads. Each upsert may be applied again (a redelivery, an
 * event passed over and later in a claimed batch): an event's host and a series' stay the first,
 * and a cancelled ticket stays cancelled.
 */
async function project(manager: EntityManager, event: CloudEvent): Promise<void> {
  const data = event.data as Record<string, unknown> | null;
  if (typeof data !== 'object' || data === null) return;
  if (event.type.startsWith('townhall.event.') && Object.values<string>(EventTopics).includes(event.type)) {
    if (typeof data['id'] === 'string' && typeof data['hostId'] === 'string')
      await manager.query(
        `INSERT INTO webhooks.event_hosts (event_id, host_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
        [data['id'], data['hostId']],
      );
  } else if (event.type === SeriesTopics.created) {
    if (typeof data['id'] === 'string' && typeof data['hostId'] === 'string')
      await manager.query(
        `INSERT INTO webhooks.series_hosts (series_id, host_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
        [data['id'], data['hostId']],
      );
  } else if (event.type === TicketTopics.issued || event.type === TicketTopics.cancelled) {
    const { id, eventId, holderId } = data;
    if (typeof id !== 'string' || typeof eventId !== 'string' || typeof holderId !== 'string') return;
    const live = event.type === TicketTopics.issued && data['status'] !== 'cancelled';
    // Issued then cancelled, never the other way round: a cancellation is final.
    await manager.query(
      `INSERT INTO webhooks.tickets AS t (ticket_id, event_id, holder_id, live) VALUES ($1, $2, $3, $4)
       ON CONFLICT (ticket_id) DO UPDATE SET live = t.live AND EXCLUDED.live`,
      [id, eventId, holderId, live],
    );
  }
}

/** Records the deliveries of one event; returns how many. */
async function fanOut(manager: EntityManager, event: CloudEvent): Promise<number> {
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
