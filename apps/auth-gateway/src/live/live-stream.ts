import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@townhall/platform';
import { JetStreamHistory } from './jetstream-history.js';
import { LiveFeed } from './live-feed.js';
import { LiveHub } from './live-hub.js';
import type { LiveHistory } from './live-subscriber.js';

/** What the live-stream route needs: the process's hub, the history to replay from, its limits. */
export interface LiveStream {
  hub: LiveHub;
  history: LiveHistory;
  /** Interval of the `: keep-alive` comment on each stream. */
  heartbeatMs: number;
  /** Most messages one client may have waiting before it is disconnected. */
  clientBuffer: number;
  /** Stops reading the stream (the gateway ends the clients' responses when it closes). */
  stop(): Promise<void>;
}

export const LIVE_STREAM = Symbol('LiveStream');

export interface LiveStreamOptions {
  nc: NatsConnection;
  logger: Logger;
  heartbeatMs: number;
  clientBuffer: number;
}

/** Starts the process's live stream: one ordered consumer on the TOWNHALL stream feeding a hub. */
export function startLiveStream(options: LiveStreamOptions): LiveStream {
  const hub = new LiveHub();
  const feed = new LiveFeed({ nc: options.nc, hub, logger: options.logger });
  feed.start();
  return {
    hub,
    history: new JetStreamHistory(options.nc),
    heartbeatMs: options.heartbeatMs,
    clientBuffer: options.clientBuffer,
    stop: () => feed.stop(),
  };
}
