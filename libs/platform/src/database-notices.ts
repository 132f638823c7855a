import pg from 'pg';
import type { Logger } from './logger.js';

export interface NoticeHandlers {
  /** LISTEN took effect (first, and after every reconnection): what was missed meanwhile is unknown. */
  listening(): void;
  /** A NOTIFY on the channel. */
  notice(payload: string): void;
  /** The connection was lost: until `listening` again, notices may be missed. */
  lost(): void;
}

const FIRST_RETRY_MS = 200;
const MAX_RETRY_MS = 5_000;

/**
 * Postgres LISTEN on a connection of its own, for state a service keeps in memory and changes in
 * its database: a change NOTIFYs in its transaction (`SELECT pg_notify(channel, payload)`, sent at
 * commit), and every replica's listener hears it. Notices are not queued while no one listens, so
 * the handlers say when the listener was lost and when it listens again (reconnecting with a
 * growing pause): the owner of the state treats it as unknown in between and reads it again after.
 */
export class DatabaseNotices {
  private client: pg.Client | undefined;
  private stopped = false;
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly handlers: NoticeHandlers,
    private readonly logger: Logger,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Not a channel name: ${channel}`);
  }

  /** Resolves once listening, or once the first attempt failed (it keeps trying meanwhile). */
  async start(): Promise<void> {
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.url, application_name: `listen:${this.channel}` });
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn({ channel: this.channel, err: error }, 'Lost the LISTEN connection; reconnecting');
      this.handlers.lost();
      this.retryLater();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel === this.channel) this.handlers.notice(message.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      onLost(error as Error);
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = FIRST_RETRY_MS;
    this.handlers.listening();
  }

  private retryLater(): void {
    clearTimeout(this.retryTimer);
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref();
  }
}
