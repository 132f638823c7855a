import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  DestinationRefused,
  postPinned,
  resolveDestination,
  type PostOutcome,
  type Resolver,
} from '@townhall/platform/outbound';
import { LOGGER, queryRows, SETTINGS, type Logger } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { WebhookSigner } from '../signing/webhook-signer.js';
import { traceHeadersOf } from './trace-headers.js';
import { RESOLVER } from '../destination-resolver.js';
import type { WebhooksSettings } from '../settings.js';
import { webhookAttemptDuration, webhookAttempts } from '../webhooks-metrics.js';
import { nextRetryInMs } from './retry-schedule.js';

/** A delivery taken by this replica for one attempt, with what it sends. */
interface LeasedDelivery {
  id: string;
  /** This attempt's number (the lease counts it). */
  attempts: number;
  created_at: Date;
  subscription_id: string;
  url: string;
  message_id: string;
  type: string;
  body: string;
}

/** Every delivery's User-Agent (docs/protocol/webhooks.md). */
const USER_AGENT = 'Townhall-Webhooks/1';
/** Time left after an attempt's own timeout for recording it, within its lease. */
const LEASE_MARGIN_MS = 5_000;
/**
 * Attempts one replica makes at once to one subscription: a receiver that hangs for the whole
 * timeout, with many deliveries due, takes at most this many of the replica's slots.
 */
const PER_SUBSCRIPTION = 4;

/**
 * Delivers what the fan-out recorded, on every replica, at least once. A pass leases due
 * deliveries with one UPDATE (`FOR UPDATE SKIP LOCKED`: replicas never take the same row), which
 * counts the attempt and moves `next_attempt_at` past the attempt's end: that is the lease, so a
 * replica that dies mid-attempt leaves the delivery due again once it expires. No transaction
 * stays open across the HTTP request. Each attempt resolves the URL's host again, checks every
 * address, and connects to the checked one (`@townhall/platform/outbound`); its outcome is
 * recorded with the delivery's next state: delivered (2xx), due again after the backoff
 * (retry-schedule.ts), or given up once the next attempt would fall beyond the retry window (24 h).
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> | undefined;
  private passAgain = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Attempts in flight here, per subscription. */
  private readonly inFlightBySubscription = new Map<string, number>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly signer: WebhookSigner,
    @Inject(RESOLVER) private readonly resolve: Resolver,
    @Inject(SETTINGS) private readonly settings: WebhooksSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.running = true;
    this.schedule(0);
  }

  /** Stops leasing; the attempts in flight finish (each within WEBHOOK_TIMEOUT_MS) and are recorded. */
  async onApplicationShutdown(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.pass;
    await Promise.all(this.inFlight);
  }

  /** New deliveries were recorded: a pass now rather than at the next poll. */
  wake(): void {
    if (!this.running) return;
    if (this.pass) this.passAgain = true;
    else this.schedule(0);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.runPass(), delayMs);
  }

  private async runPass(): Promise<void> {
    if (this.pass || !this.running) return;
    this.pass = this.leaseAndAttempt();
    await this.pass;
    this.pass = undefined;
    if (!this.running) return;
    if (this.passAgain) this.schedule(0);
    else this.schedule(this.settings.pollIntervalMs);
  }

  private async leaseAndAttempt(): Promise<void> {
    this.passAgain = false;
    const free = this.settings.concurrency - this.inFlight.size;
    if (free <= 0) return;
    try {
      const leased = await this.lease(free);
      for (const delivery of leased) this.track(delivery.subscription_id, this.attempt(delivery));
    } catch (error) {
      this.logger.error({ err: error }, 'leasing webhook deliveries failed; trying again at the next poll');
    }
  }

  private track(subscriptionId: string, attempt: Promise<void>): void {
    const counts = this.inFlightBySubscription;
    this.inFlight.add(attempt);
    counts.set(subscriptionId, (counts.get(subscriptionId) ?? 0) + 1);
    void attempt.finally(() => {
      this.inFlight.delete(attempt);
      const left = (counts.get(subscriptionId) ?? 1) - 1;
      if (left > 0) counts.set(subscriptionId, left);
      else counts.delete(subscriptionId);
      // A slot is free: what is due may go now.
      this.wake();
    });
  }

  /**
   * Takes up to `limit` due deliveries, oldest due first, at most PER_SUBSCRIPTION in flight here
   * per subscription (counting those already in flight): the candidates are ranked per
   * subscription without locks, then locked with SKIP LOCKED and their due time checked again
   * (another replica may have taken one meanwhile).
   */
  private lease(limit: number): Promise<LeasedDelivery[]> {
    const busy = [...this.inFlightBySubscription.entries()];
    return queryRows<LeasedDelivery>(
      this.dataSource.manager,
      `WITH busy AS (
         SELECT * FROM unnest($3::uuid[], $4::int[]) AS b(subscription_id, in_flight)
       ), candidates AS (
         SELECT c.id, c.next_attempt_at,
                row_number() OVER (PARTITION BY c.subscription_id ORDER BY c.next_attempt_at)
                  + COALESCE(b.in_flight, 0) AS place
           FROM (SELECT id, subscription_id, next_attempt_at FROM webhooks.deliveries
                  WHERE state = 'pending' AND next_attempt_at <= now()
                  ORDER BY next_attempt_at LIMIT $1 * 10) c
           LEFT JOIN busy b ON b.subscription_id = c.subscription_id
       )
       UPDATE webhooks.deliveries d
          SET attempts = d.attempts + 1,
              next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
         FROM webhooks.subscriptions s, webhooks.messages m
        WHERE d.id IN (
                SELECT id FROM webhooks.deliveries
                 WHERE id IN (SELECT id FROM candidates WHERE place <= $5)
                   AND state = 'pending' AND next_attempt_at <= now()
                 ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
          AND s.id = d.subscription_id AND m.id = d.message_id
      RETURNING d.id::text AS id, d.attempts, d.created_at, d.subscription_id, s.url,
                m.id AS message_id, m.type, m.body`,
      [
        limit,
        this.settings.timeoutMs + LEASE_MARGIN_MS,
        busy.map(([subscriptionId]) => subscriptionId),
        busy.map(([, count]) => count),
        PER_SUBSCRIPTION,
      ],
    );
  }

  private async attempt(delivery: LeasedDelivery): Promise<void> {
    const attemptedAt = new Date();
    const started = performance.now();
    const outcome = await this.send(delivery);
    const durationMs = Math.round(performance.now() - started);
    try {
      await this.record(delivery, outcome, attemptedAt, durationMs);
    } catch (error) {
      // The lease runs out and the delivery is attempted again: at least once still holds.
      this.logger.error(
        { err: error, deliveryId: delivery.id, webhookId: delivery.message_id },
        'recording a webhook attempt failed',
      );
    }
  }

  private async send(delivery: LeasedDelivery): Promise<PostOutcome> {
    const { timeoutMs, destinations } = this.settings;
    const deadline = Date.now() + timeoutMs;
    try {
      const destination = await resolveDestination(delivery.url, destinations, this.resolve, timeoutMs);
      const headers = {
        'user-agent': USER_AGENT,
        ...this.signer.headers(delivery.message_id, delivery.body),
        ...traceHeadersOf(delivery.body),
      };
      return await postPinned(destination, headers, delivery.body, Math.max(1, deadline - Date.now()));
    } catch (error) {
      if (error instanceof DestinationRefused) return { status: null, error: `refused: ${error.message}` };
      return { status: null, error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** The attempt, and the delivery's next state, if this replica still holds its lease. */
  private async record(
    delivery: LeasedDelivery,
    outcome: PostOutcome,
    attemptedAt: Date,
    durationMs: number,
  ): Promise<void> {
    const delivered = outcome.error === null;
    const retryInMs = delivered
      ? null
      : nextRetryInMs(delivery.attempts, new Date(delivery.created_at), new Date(), this.settings.retry);
    const state = delivered ? 'delivered' : retryInMs === null ? 'given_up' : 'retrying';
    // The subscription's row first (FOR KEY SHARE), then the delivery's: the order a DELETE of
    // the subscription takes them in too (its cascade), so the two never deadlock. Deleted
    // meanwhile: nothing is recorded, there is no one to show the attempt to.
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO webhooks.attempts
           (subscription_id, message_id, type, attempt, attempted_at, status, duration_ms, error, outcome)
         SELECT id, $2, $3, $4, $5, $6, $7, $8, $9 FROM webhooks.subscriptions WHERE id = $1 FOR KEY SHARE`,
        [
          delivery.subscription_id,
          delivery.message_id,
          delivery.type,
          delivery.attempts,
          attemptedAt,
          outcome.status,
          durationMs,
          outcome.error?.slice(0, 500) ?? null,
          state,
        ],
      );
      await queryRows(
        manager,
        state === 'retrying'
          ? `UPDATE webhooks.deliveries
                SET next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
              WHERE id = $1 AND attempts = $2 AND state = 'pending'`
          : `UPDATE webhooks.deliveries SET state = $3, concluded_at = now()
              WHERE id = $1 AND attempts = $2 AND state = 'pending'`,
        [delivery.id, delivery.attempts, state === 'retrying' ? retryInMs : state],
      );
    });
    webhookAttempts.inc({ outcome: state });
    webhookAttemptDuration.observe(durationMs / 1000);
    const log = {
      deliveryId: delivery.id,
      webhookId: delivery.message_id,
      type: delivery.type,
      attempt: delivery.attempts,
      status: outcome.status,
      durationMs,
      ...(outcome.error === null ? {} : { error: outcome.error }),
    };
    if (state === 'given_up') this.logger.warn(log, 'a webhook delivery was given up');
    else if (state === 'retrying') this.logger.info(log, 'a webhook delivery attempt failed; retrying later');
    else this.logger.debug(log, 'a webhook was delivered');
  }
}
