import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@townhall/platform';
import { LIVE_LIMIT_DEFAULTS } from '../config.js';
import { JetStreamHistory } from './jetstream-history.js';
import { LiveFeed } from './live-feed.js';
import { LiveHub } from './live-hub.js';
import type { LiveHistory } from './live-subscriber.js';
import { OpenLiveStreams } from './open-live-streams.js';

/** What the live-stream route needs: the process's hub, the history to replay from, its limits. */
export interface LiveStream {
  hub: LiveHub;
  history: LiveHistory;
  /** Interval of the `: keep-alive` comment on each stream. */
  heartbeatMs: number;
  /** Most messages one client may have waiting before it is disconnected. */
  clientBuffer: number;
  /** The streams open on this process (per client address, per event, in all) and their caps. */
  streams: OpenLiveStreams;
  /** Most stream messages one resume reads; a client further behind gets `history.cut`. */
  replayLimit: number;
  /** Stops reading the stream (the gateway ends the clients' responses when it closes). */
  stop(): Promise<void>;
}

export const LIVE_STREAM = Symbol('LiveStream');

/** The settings of every live stream, whatever feeds it (config.ts liveStreamSettingsOf). */
export interface LiveStreamSettings {
  heartbeatMs: number;
  clientBuffer: number;
  /** LIVE_STREAMS_PER_CLIENT; default 20. */
  streamsPerClient?: number;
  /** LIVE_STREAMS_PER_EVENT; default 10,000. */
  streamsPerEvent?: number;
  /** LIVE_STREAMS_TOTAL; default 20,000. */
  streamsTotal?: number;
  /** LIVE_REPLAY_LIMIT; default 1,000. */
  replayLimit?: number;
}

export interface LiveStreamOptions extends LiveStreamSettings {
  nc: NatsConnection;
  logger: Logger;
}

/** The limits part of a LiveStream, from its settings. */
function liveLimitsOf(
  settings: LiveStreamSettings,
): Pick<LiveStream, 'heartbeatMs' | 'clientBuffer' | 'streams' | 'replayLimit'> {
  return {
    heartbeatMs: settings.heartbeatMs,
    clientBuffer: settings.clientBuffer,
    streams: new OpenLiveStreams({
      perClient: settings.streamsPerClient ?? LIVE_LIMIT_DEFAULTS.streamsPerClient,
      perEvent: settings.streamsPerEvent ?? LIVE_LIMIT_DEFAULTS.streamsPerEvent,
      total: settings.streamsTotal ?? LIVE_LIMIT_DEFAULTS.streamsTotal,
    }),
    replayLimit: settings.replayLimit ?? LIVE_LIMIT_DEFAULTS.replayLimit,
  };
}

/**
 * A live stream around a hub that something else feeds (JetStream, standalone's event log, or a
 * test), replaying resumes from `history`; `stop` ends the feeding.
 */
export function liveStreamOf(
  hub: LiveHub,
  history: LiveHistory,
  settings: LiveStreamSettings,
  stop: () => Promise<void> = async () => {},
): LiveStream {
  return { hub, history, ...liveLimitsOf(settings), stop };
}

/** Starts the process's live stream: one ordered consumer on the TOWNHALL stream feeding a hub. */
export function startLiveStream(options: LiveStreamOptions): LiveStream {
  const hub = new LiveHub();
  const feed = new LiveFeed({ nc: options.nc, hub, logger: options.logger });
  feed.start();
  return liveStreamOf(hub, new JetStreamHistory(options.nc), options, () => feed.stop());
}
