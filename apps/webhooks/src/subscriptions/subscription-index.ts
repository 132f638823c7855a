import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { webhookWildcardOf } from '@townhall/contracts';
import {
  DatabaseNotices,
  LOGGER,
  queryRows,
  SETTINGS,
  type ConsumerGate,
  type Logger,
} from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import type { WebhooksSettings } from '../settings.js';

/** The channel every change of a subscription NOTIFYs, in its transaction. */
export const SUBSCRIPTIONS_CHANNEL = 'webhooks_subscriptions';

/**
 * The types some subscription takes (exact, or `townhall.<aggregate>.*`), in memory, so that the
 * fan-out passes over a domain event nobody can receive before any database work: with no
 * subscription, the webhooks service costs a write almost nothing.
 *
 * Never fewer types than the database holds, while it is known: a subscription made here adds
 * its types before its transaction commits; one made on another replica reaches this one by
 * Postgres NOTIFY at its commit (`WEBHOOK_LISTEN`), and the set is read again then. Deletions
 * read it again too (until then a type too many only costs work). While the listener is down,
 * and before the first read, the set is unknown and every event takes the database path.
 *
 * It is also the fan-out consumer's gate (ConsumerGate): with no subscription at all, the
 * consumer pulls nothing, so no domain event reaches this service; the first subscription opens
 * it, and the consumer takes up every event since from its place in the stream (the projections
 * first, then deliveries for what happened after the subscription was made).
 */
@Injectable()
export class SubscriptionIndex implements OnApplicationBootstrap, OnApplicationShutdown, ConsumerGate {
  private types: Set<string> | undefined;
  private readonly gateListeners = new Set<(isOpen: boolean) => void>();
  private wasOpen = true;
  /** Reads started, and the latest whose answer was kept: an older read never overwrites a newer. */
  private readsStarted = 0;
  private readKept = 0;
  private readonly notices: DatabaseNotices | undefined;
  /** The latest read, for the start to wait for the first. */
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(SETTINGS) settings: WebhooksSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    const { url } = dataSource.options as { url?: string };
    if (settings.listen && url)
      this.notices = new DatabaseNotices(
        url,
        SUBSCRIPTIONS_CHANNEL,
        {
          listening: () => void this.read(),
          notice: () => void this.read(),
          lost: () => this.forget(),
        },
        logger,
      );
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.notices) await this.notices.start();
    else void this.read();
    await this.reading;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.notices?.stop();
  }

  /** Whether some subscription may exist (true while unknown): the fan-out consumer pulls then. */
  get isOpen(): boolean {
    return this.types === undefined || this.types.size > 0;
  }

  onGateChange(listener: (isOpen: boolean) => void): () => void {
    this.gateListeners.add(listener);
    return () => this.gateListeners.delete(listener);
  }

  /** Whether some subscription may take a domain event of `type` (true while unknown). */
  mayTake(type: string): boolean {
    return this.types === undefined || this.types.has(type) || this.types.has(webhookWildcardOf(type));
  }

  /** In the transaction of a new subscription: its types count from now, and the others hear of it. */
  async adding(manager: EntityManager, types: readonly string[]): Promise<void> {
    for (const type of types) this.types?.add(type);
    this.gateMayHaveChanged();
    // A read that began before this commits would bring the set back without them.
    this.readKept = this.readsStarted;
    await this.changed(manager);
  }

  /** In the transaction of a deletion: every replica reads the set again once it commits. */
  async changed(manager: EntityManager): Promise<void> {
    await manager.query(`SELECT pg_notify($1, '')`, [SUBSCRIPTIONS_CHANNEL]);
  }

  /** After a change made here: read the set again, where no NOTIFY will say so (one replica alone). */
  refresh(): void {
    if (!this.notices) void this.read();
  }

  private forget(): void {
    this.types = undefined;
    this.gateMayHaveChanged();
    // Reads already started may not bring it back: they ran before what the listener missed.
    this.readKept = this.readsStarted;
  }

  private gateMayHaveChanged(): void {
    const isOpen = this.isOpen;
    if (isOpen === this.wasOpen) return;
    this.wasOpen = isOpen;
    for (const listener of this.gateListeners) listener(isOpen);
  }

  private read(): Promise<void> {
    this.reading = this.readOnce();
    return this.reading;
  }

  private async readOnce(): Promise<void> {
    const started = ++this.readsStarted;
    try {
      const rows = await queryRows<{ type: string }>(
        this.dataSource.manager,
        'SELECT DISTINCT unnest(types) AS type FROM webhooks.subscriptions',
      );
      if (started <= this.readKept) return;
      this.readKept = started;
      this.types = new Set(rows.map((row) => row.type));
      this.gateMayHaveChanged();
    } catch (error) {
      // Unknown until the next notice or change: every event takes the database path meanwhile.
      this.logger.warn({ err: error }, 'Could not read the webhook subscription types');
    }
  }
}
