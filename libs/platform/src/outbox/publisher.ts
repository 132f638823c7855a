import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
  type JetStreamClient,
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
 * must stay well above the relay's lease (30 s).
 */
const TOWNHALL_STREAM_CONFIG = {
  name: TOWNHALL_STREAM,
  subjects: [TOWNHALL_SUBJECTS],
  storage: StorageType.File,
  retention: RetentionPolicy.Limits,
  discard: DiscardPolicy.Old,
  max_age: nanos(30 * DAY_MS),
  duplicate_window: nanos(2 * 60 * 1_000),
  max_msgs: -1,
  max_bytes: -1,
  num_replicas: 1,
} satisfies Partial<StreamConfig>;

/**
 * Creates the TOWNHALL stream (subjects townhall.>, file storage, limits retention, max_age 30 days,
 * duplicate_window 2 minutes) if it does not exist; leaves an existing one as it is.
 */
export async function ensureTownhallStream(nc: NatsConnection): Promise<void> {
  const jsm = await jetstreamManager(nc);
  if (await streamExists(jsm.streams.info.bind(jsm.streams))) return;
  try {
    await jsm.streams.add(TOWNHALL_STREAM_CONFIG);
  } catch (error) {
    // Another replica starting at the same moment may have created it first.
    if (await streamExists(jsm.streams.info.bind(jsm.streams))) return;
    throw error;
  }
}

async function streamExists(info: (stream: string) => Promise<unknown>): Promise<boolean> {
  try {
    await info(TOWNHALL_STREAM);
    return true;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound) return false;
    throw error;
  }
}
