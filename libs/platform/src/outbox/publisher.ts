import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { TOWNHALL_STREAM, TOWNHALL_SUBJECTS, type CloudEvent } from '@townhall/contracts';

export interface DomainEventPublisher {
  publish(event: CloudEvent): Promise<void>;
}

export interface JetStreamPublisherOptions {
  /** How long to wait for the PubAck; defaults to the client's JetStream timeout (5 s). */
  timeoutMs?: number;
}

/**
 * Publishes to JetStream with Nats-Msg-Id = event.id, awaiting the PubAck (so JetStream dedupes a
 * republish within its duplicate window).
 */
export class JetStreamPublisher implements DomainEventPublisher {
  private readonly js: JetStreamClient;

  constructor(
    nc: NatsConnection,
    private readonly options: JetStreamPublisherOptions = {},
  ) {
    this.js = jetstream(nc);
  }

  async publish(event: CloudEvent): Promise<void> {
    try {
      await this.js.publish(event.type, JSON.stringify(event), {
        msgID: event.id,
        // A subject caught by some other stream (or by none) fails here instead of being lost.
        expect: { streamName: TOWNHALL_STREAM },
        ...(this.options.timeoutMs === undefined ? {} : { timeout: this.options.timeoutMs }),
      });
    } catch (error) {
      // The client reports a subject no stream listens on as "jetstream is not enabled"; name the event.
      throw new Error(`Publishing ${event.type} ${event.id} to JetStream failed: ${String(error)}`, {
        cause: error,
      });
    }
  }
}

const DAY_MS = 24 * 60 * 60 * 1_000;

/**
 * The TOWNHALL stream: on disk, kept 30 days so that a consumer that was down catches up; the
 * 2-minute duplicate window is what makes the relay's republish after a crash harmless, so it
 * must stay well above the relay's lease (30 s). `num_replicas` is NATS_STREAM_REPLICAS: on a
 * JetStream cluster, 3 keeps every acknowledged event on a majority of nodes, so that losing
 * one node (or its disk) loses nothing. The durable consumers follow the stream's replicas.
 */
function townhallStreamConfig(replicas: number) {
  return {
    name: TOWNHALL_STREAM,
    subjects: [TOWNHALL_SUBJECTS],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_age: nanos(30 * DAY_MS),
    duplicate_window: nanos(2 * 60 * 1_000),
    max_msgs: -1,
    max_bytes: -1,
    num_replicas: replicas,
  } satisfies Partial<StreamConfig>;
}

/**
 * Creates the TOWNHALL stream (subjects townhall.>, file storage, limits retention, max_age 30
 * days, duplicate_window 2 minutes, `replicas` replicas) if it does not exist. An existing one is
 * left as it is but for its replicas, which are set to `replicas` (JetStream moves the data; a
 * cluster with too few nodes refuses, and the start fails saying so).
 */
export async function ensureTownhallStream(nc: NatsConnection, replicas = 1): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const existing = await streamConfig(jsm);
  if (existing) {
    if (existing.num_replicas !== replicas) await scaleStream(jsm, existing, replicas);
    return;
  }
  try {
    await jsm.streams.add(townhallStreamConfig(replicas));
  } catch (error) {
    // Another replica starting at the same moment may have created it first.
    if (await streamConfig(jsm)) return;
    throw error;
  }
}

/** How often an app that may not create the TOWNHALL stream looks for it again. */
const STREAM_WAIT_MS = 250;

/**
 * Resolves once the TOWNHALL stream exists: for an app whose NATS user may read the stream but not
 * create it (it announces nothing), started before the services that do. Says so once if it waits.
 */
export async function awaitTownhallStream(
  nc: NatsConnection,
  logger?: { info(message: string): void },
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  for (let said = false; !(await streamConfig(jsm)); said = true) {
    if (!said)
      logger?.info(
        `waiting for the ${TOWNHALL_STREAM} stream: the services that announce domain events create it`,
      );
    await new Promise((resolve) => setTimeout(resolve, STREAM_WAIT_MS));
  }
}

async function scaleStream(jsm: JetStreamManager, existing: StreamConfig, replicas: number): Promise<void> {
  try {
    await jsm.streams.update(TOWNHALL_STREAM, { ...existing, num_replicas: replicas });
  } catch (error) {
    throw new Error(
      `The ${TOWNHALL_STREAM} stream has ${existing.num_replicas} replica(s) and NATS_STREAM_REPLICAS asks for ${replicas}: JetStream refused the change (${String(error)})`,
      { cause: error },
    );
  }
}

async function streamConfig(jsm: JetStreamManager): Promise<StreamConfig | undefined> {
  try {
    return (await jsm.streams.info(TOWNHALL_STREAM)).config;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)
      return undefined;
    throw error;
  }
}
