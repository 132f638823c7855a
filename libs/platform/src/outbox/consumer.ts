import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  ReplayPolicy,
  jetstream,
  jetstreamManager,
  type ConsumerConfig,
  type JetStreamManager,
  type ConsumerMessages,
  type JsMsg,
} from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { isUuid, TOWNHALL_STREAM, TOWNHALL_SUBJECTS, type CloudEvent } from '@townhall/contracts';
import { databaseFaultOf } from '../database-faults.js';
import type { Logger } from '../logger.js';
import { contextOf, inSpan, isTracing, openSpan, SpanKind } from '../observability/tracing.js';
import type { ConsumerGate } from './consumer-gate.js';

export interface DomainEventConsumerOptions {
  nc: NatsConnection;
  /** The durable consumer's name: one per reacting service, shared by its replicas. */
  durable: string;
  /** Subjects (wildcards allowed) this consumer reacts to, e.g. `townhall.event.*`. */
  subjects: string[];
  logger: Logger;
  handle(event: CloudEvent): Promise<void>;
  /** Several events in stream order at once (see Subscription.handleBatch); optional. */
  handleBatch?: (events: CloudEvent[]) => Promise<void>;
  /** With `handleBatch`: how long a batch waits for more events after its first (default 0). */
  gatherMs?: number | undefined;
  /** How long JetStream waits before redelivering an event whose handler threw. Default 5 s. */
  retryDelayMs?: number;
  /** While closed, nothing is pulled (ConsumerGate); the durable keeps its place. Default: always open. */
  gate?: ConsumerGate | undefined;
}

export interface DomainEventConsumer {
  /** Stops fetching and waits for the event being handled. */
  stop(): Promise<void>;
}

/**
 * How long an event delivered to a consumer that went silent (its process killed, its replica set
 * lost, its consumer's leader on a lost NATS node) waits before JetStream gives it to another
 * replica: a bound on how long a crash holds up the views. A handler that takes longer says it is
 * still working (WORKING_EVERY_MS). At 6 s the views converged 11.5-13.5 s after a stream leader's
 * loss in the cluster test (limit 15 s); at 3 s, 4.9-7.3 s. An event redelivered while it waited
 * in a starved process's buffer is handled once all the same (claimEventOnce).
 */
const ACK_WAIT_MS = 3_000;
/**
 * How long one pull waits on the server, and the heartbeat the client expects meanwhile: after
 * two missed heartbeats it pulls again. So a consumer whose pull died with its NATS node (or with
 * the consumer's leader) pulls from the node that took over within about 2 s, rather than after
 * the client's default 30 s.
 */
const PULL_EXPIRES_MS = 5_000;
const PULL_HEARTBEAT_MS = 1_000;
/** How soon an event whose handler met a database fault is redelivered. */
const DATABASE_RETRY_DELAY_MS = 1_000;
const NOTHING_YET = Symbol('nothing yet');
/** The most events a batch handler is given at once (and a batch consumer buffers). */
export const CONSUMER_BATCH = 100;
// A handler slower than the ack wait would see its event redelivered while it still runs.
const WORKING_EVERY_MS = 1_000;

/**
 * A durable JetStream pull consumer on TOWNHALL (created or updated: explicit ack, deliver all,
 * filtered to `subjects`), processing events one at a time, or with `handleBatch` what has
 * arrived at once: ack after the handler resolves, nak with a delay if it throws. The durable keeps its position on the server, so a consumer that was down
 * catches up when it comes back. Delivery is at least once: handlers dedupe with claimEventOnce.
 */
export async function consumeDomainEvents(options: DomainEventConsumerOptions): Promise<DomainEventConsumer> {
  if (options.subjects.length === 0) throw new Error('consumeDomainEvents needs at least one subject');
  const { logger, durable } = options;
  const retryDelayMs = options.retryDelayMs ?? 5_000;
  const filter = subjectFilter(options.nc, options.subjects);
  if (filter.local) {
    logger.info(
      { durable, subjects: options.subjects, server: options.nc.info?.version },
      'this NATS server filters on one subject only; filtering the other subjects here',
    );
  }
  await upsertDurable(await jetstreamManager(options.nc), {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
    ack_wait: nanos(ACK_WAIT_MS),
    ...filter.config,
  });
  const consumer = await jetstream(options.nc).consumers.get(TOWNHALL_STREAM, durable);
  const handleBatch = options.handleBatch;
  const gatherMs = handleBatch ? (options.gatherMs ?? 0) : 0;

  /** The message's event, or undefined when it is not for this consumer (acked or terminated here). */
  const eventOf = (message: JsMsg): CloudEvent | undefined => {
    if (filter.local && !filter.local(message.subject)) {
      message.ack();
      return undefined;
    }
    const event = parseCloudEvent(message);
    if (!event) {
      logger.error(
        { durable, subject: message.subject, seq: message.seq },
        'dropping a malformed domain event',
      );
      message.term('malformed CloudEvent');
    }
    return event;
  };

  const handleOne = async (message: JsMsg, event: CloudEvent): Promise<void> => {
    const keepAlive = setInterval(() => message.working(), WORKING_EVERY_MS);
    try {
      if (!isTracing()) await options.handle(event);
      else
        await inSpan(
          `${event.type} process`,
          {
            kind: SpanKind.CONSUMER,
            parent: contextOf(event),
            attributes: consumerAttributes(durable, event),
          },
          () => options.handle(event),
        );
      message.ack();
    } catch (error) {
      logger.warn(
        { err: error, durable, eventId: event.id, type: event.type, deliveries: message.info.deliveryCount },
        'domain event handler failed; JetStream redelivers it later',
      );
      // The database away (a restart) is back within a second or two: try again soon, so that
      // projections do not lag an outage by the whole retry delay.
      message.nak(databaseFaultOf(error) ? Math.min(DATABASE_RETRY_DELAY_MS, retryDelayMs) : retryDelayMs);
    } finally {
      clearInterval(keepAlive);
    }
  };

  /** A batch in one call; if it fails, each event alone, so one bad event fails only itself. */
  const handleMany = async (batch: Array<{ message: JsMsg; event: CloudEvent }>): Promise<void> => {
    const [only] = batch;
    if (!handleBatch || (batch.length === 1 && only)) {
      for (const { message, event } of batch) await handleOne(message, event);
      return;
    }
    const keepAlive = setInterval(() => batch.forEach(({ message }) => message.working()), WORKING_EVERY_MS);
    // Traced, each event's handling is a span in its own write's trace, and the batch's work (its
    // statements) a span linked to them all.
    const spans = (isTracing() ? batch : []).flatMap(
      ({ event }) =>
        openSpan(`${event.type} process`, {
          kind: SpanKind.CONSUMER,
          parent: contextOf(event),
          attributes: consumerAttributes(durable, event),
        }) ?? [],
    );
    let failure: unknown;
    try {
      await inSpan(
        `${durable} batch`,
        {
          kind: SpanKind.CONSUMER,
          links: spans.map(({ span }) => ({ context: span.spanContext() })),
          attributes: { 'messaging.batch.message_count': batch.length },
        },
        () => handleBatch(batch.map(({ event }) => event)),
      );
      for (const { message } of batch) message.ack();
      return;
    } catch (error) {
      failure = error;
      logger.warn(
        { err: error, durable, events: batch.length },
        'domain event batch failed; handling each alone',
      );
    } finally {
      clearInterval(keepAlive);
      for (const { end } of spans) end(failure);
    }
    for (const { message, event } of batch) await handleOne(message, event);
  };

  /** Handles what `messages` yields until they are stopped (what is buffered then is handled first). */
  const run = (messages: ConsumerMessages): Promise<void> =>
    (async () => {
      const iterator = messages[Symbol.asyncIterator]();
      // A next() that lost a race stays pending for the following round: no message is ever lost.
      let ahead: Promise<IteratorResult<JsMsg>> | undefined;
      const next = () => (ahead ??= iterator.next());
      const nothingYet = (waitMs: number) =>
        new Promise<typeof NOTHING_YET>((resolve) => {
          if (waitMs <= 0) setImmediate(() => resolve(NOTHING_YET));
          else setTimeout(() => resolve(NOTHING_YET), waitMs);
        });
      for (;;) {
        const first = await next();
        ahead = undefined;
        if (first.done) return;
        const batch: Array<{ message: JsMsg; event: CloudEvent }> = [];
        let message: JsMsg | undefined = first.value;
        let done = false;
        const gatherUntil = performance.now() + gatherMs;
        while (message) {
          const event = eventOf(message);
          if (event) batch.push({ message, event });
          message = undefined;
          if (!handleBatch || batch.length >= CONSUMER_BATCH) break;
          // Whatever has already arrived joins the batch, and with gatherMs what arrives until then.
          const more = await Promise.race([next(), nothingYet(gatherUntil - performance.now())]);
          if (more === NOTHING_YET) break;
          ahead = undefined;
          if (more.done) done = true;
          else message = more.value;
        }
        if (batch.length > 0) await handleMany(batch);
        if (done) return;
      }
    })().catch((error: unknown) => {
      logger.error({ err: error, durable }, 'domain event consumer stopped on an error');
    });

  // Without a batch handler, one message buffered at a time: replicas share the work, and a stop
  // strands at most one. With one, up to a batch: what has arrived is handled in one go.
  let pulling: { messages: ConsumerMessages; done: Promise<void> } | undefined;
  const pull = async () => {
    if (pulling) return;
    const messages = await consumer.consume({
      max_messages: handleBatch ? CONSUMER_BATCH : 1,
      expires: PULL_EXPIRES_MS,
      idle_heartbeat: PULL_HEARTBEAT_MS,
    });
    pulling = { messages, done: run(messages) };
  };
  const pause = async () => {
    const current = pulling;
    pulling = undefined;
    if (!current) return;
    current.messages.stop();
    await current.done;
  };
  // Gate changes in the order they happen, one at a time.
  let changes: Promise<void> = Promise.resolve();
  const follow = (open: boolean) => {
    changes = changes
      .then(() => (open ? pull() : pause()))
      .catch((error: unknown) =>
        logger.error({ err: error, durable }, 'domain event consumer could not follow its gate'),
      );
    return changes;
  };
  const { gate } = options;
  // The first pull at start: a consumer that cannot start fails the service's start.
  if (gate?.isOpen ?? true) await pull();
  const unfollow = gate?.onGateChange((open) => {
    logger.info(
      { durable, open },
      open ? 'consumer gate opened: pulling again' : 'consumer gate closed: pausing',
    );
    void follow(open);
  });
  // A change during the first pull is followed now.
  if (gate && gate.isOpen !== (pulling !== undefined)) void follow(gate.isOpen);

  return {
    async stop() {
      unfollow?.();
      await changes;
      await pause();
    },
  };
}

interface SubjectFilter {
  config: Pick<Partial<ConsumerConfig>, 'filter_subject' | 'filter_subjects'>;
  /** Set when the server cannot filter on all subjects itself. */
  local?: (subject: string) => boolean;
}

// filter_subjects needs nats-server 2.10 (the client refuses it on older servers, even for one
// subject); one subject works everywhere as filter_subject. The unused field is sent as
// undefined so that an update drops whatever the consumer had before.
function subjectFilter(nc: NatsConnection, subjects: string[]): SubjectFilter {
  const [only] = subjects;
  if (subjects.length === 1 && only !== undefined) {
    return { config: { filter_subject: only, filter_subjects: undefined } };
  }
  if (serverAtLeast(nc.info?.version, 2, 10)) {
    return { config: { filter_subjects: subjects, filter_subject: undefined } };
  }
  return {
    config: { filter_subject: TOWNHALL_SUBJECTS, filter_subjects: undefined },
    local: (subject) => subjects.some((pattern) => subjectMatches(pattern, subject)),
  };
}

function serverAtLeast(version: string | undefined, major: number, minor: number): boolean {
  const match = /^v?(\d+)\.(\d+)/.exec(version ?? '');
  if (!match) return false;
  const [serverMajor, serverMinor] = [Number(match[1]), Number(match[2])];
  return serverMajor > major || (serverMajor === major && serverMinor >= minor);
}

/** NATS wildcard matching: `*` is one token, a final `>` is one or more. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const want = pattern.split('.');
  const got = subject.split('.');
  for (const [index, token] of want.entries()) {
    if (token === '>') return index === want.length - 1 && got.length > index;
    const actual = got[index];
    if (actual === undefined || (token !== '*' && token !== actual)) return false;
  }
  return got.length === want.length;
}

// The client's add() only creates (an existing durable with another config is an error), so an
// existing durable is updated instead. Two replicas creating at once: the loser updates.
async function upsertDurable(
  jsm: JetStreamManager,
  config: Partial<ConsumerConfig> & { durable_name: string },
): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    const exists = await durableExists(jsm, config.durable_name);
    if (exists) {
      const { ack_wait, filter_subject, filter_subjects } = config;
      await jsm.consumers.update(TOWNHALL_STREAM, config.durable_name, {
        ack_wait,
        filter_subject,
        filter_subjects,
      });
      return;
    }
    try {
      await jsm.consumers.add(TOWNHALL_STREAM, config);
      return;
    } catch (error) {
      if (attempt > 0 || !(error instanceof JetStreamApiError)) throw error;
    }
  }
}

async function durableExists(jsm: JetStreamManager, durable: string): Promise<boolean> {
  try {
    await jsm.consumers.info(TOWNHALL_STREAM, durable);
    return true;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound) return false;
    throw error;
  }
}

function consumerAttributes(durable: string, event: CloudEvent): Record<string, string> {
  return {
    'messaging.system': 'nats',
    'messaging.consumer.group.name': durable,
    'messaging.message.id': event.id,
  };
}

function parseCloudEvent(message: JsMsg): CloudEvent | undefined {
  let value: unknown;
  try {
    value = message.json<unknown>();
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const event = value as Partial<Record<keyof CloudEvent, unknown>>;
  const valid =
    event.specversion === '1.0' &&
    typeof event.id === 'string' &&
    isUuid(event.id) &&
    typeof event.type === 'string' &&
    typeof event.source === 'string' &&
    typeof event.subject === 'string' &&
    typeof event.time === 'string' &&
    'data' in event;
  return valid ? (value as CloudEvent) : undefined;
}

export interface Subscription {
  durable: string;
  subjects: string[];
  handle: (event: CloudEvent) => Promise<void>;
  /**
   * Optional: the events that have already arrived (up to CONSUMER_BATCH, in stream order) in
   * one call, typically one transaction (claimEventsOnce): a busy stream then costs a transaction
   * per batch instead of per event. If it throws, each event is handled again alone with
   * `handle`, so one bad event fails only itself. Standalone mode calls `handle` only.
   */
  handleBatch?: (events: CloudEvent[]) => Promise<void>;
  /** With `handleBatch`: how long a batch waits for more events after its first (default 0). */
  gatherMs?: number;
  /** While closed, the consumer pulls nothing (NATS only: in-process consumers ignore it). */
  gate?: ConsumerGate;
}

/** Starts one durable consumer per subscription; `stop()` stops them all. */
export async function consumeSubscriptions(
  nc: NatsConnection,
  logger: Logger,
  subscriptions: Subscription[],
): Promise<{ stop(): Promise<void> }> {
  const consumers = await Promise.all(
    subscriptions.map(({ durable, subjects, handle, handleBatch, gatherMs, gate }) =>
      consumeDomainEvents({
        nc,
        durable,
        subjects,
        logger,
        handle,
        gate,
        ...(handleBatch && { handleBatch, gatherMs }),
      }),
    ),
  );
  return { stop: async () => void (await Promise.all(consumers.map((consumer) => consumer.stop()))) };
}
