import {
  AckPolicy,
  DeliverPolicy,
  ReplayPolicy,
  jetstream,
  jetstreamManager,
  type ConsumerMessages,
  type JsMsg,
} from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { TOWNHALL_STREAM, type CloudEvent } from '@townhall/contracts';
import { databaseFaultOf } from '../database-faults.js';
import type { Logger } from '../logger.js';
import { contextOf, inSpan, isTracing, openSpan, SpanKind } from '../observability/tracing.js';
import type { ConsumerGate } from './consumer-gate.js';
import { cloudEventOf, type DomainEventReading } from './domain-event-reader.js';
import { upsertDurable } from './durable.js';
import { subjectFilter } from './subjects.js';

export interface DomainEventConsumerOptions<E extends CloudEvent> {
  nc: NatsConnection;
  /** The durable consumer's name: one per reacting service, shared by its replicas. */
  durable: string;
  /** Subjects (wildcards allowed) this consumer reacts to, e.g. `townhall.event.*`. */
  subjects: string[];
  logger: Logger;
  /**
   * What each delivered CloudEvent is to the handlers, before they see it: a service's consumer
   * reads by domainEventCatalog (readDomainEvent, what Subscriptions run with).
   */
  read: (event: CloudEvent) => DomainEventReading<E>;
  handle(event: E): Promise<void>;
  /** Several events in stream order at once (see Subscription.handleBatch); optional. */
  handleBatch?: (events: E[]) => Promise<void>;
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
 * arrived at once: ack after the handler resolves, nak with a delay if it throws. The durable keeps
 * its position on the server, so a consumer that was down catches up when it comes back. Delivery
 * is at least once: handlers dedupe with claimEventOnce. Each event is read (`read`) before a
 * handler sees it: one that is no CloudEvent, or whose data its type's schema refuses, is logged
 * and terminated (JetStream never redelivers it: it would fail the same way forever); one of a
 * type this release does not know is acknowledged and passed over.
 */
export async function consumeDomainEvents<E extends CloudEvent>(
  options: DomainEventConsumerOptions<E>,
): Promise<DomainEventConsumer> {
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

  /** The message's event, read; undefined when it is not for this consumer (acked or terminated here). */
  const eventOf = (message: JsMsg): E | undefined => {
    if (filter.local && !filter.local(message.subject)) {
      message.ack();
      return undefined;
    }
    const envelope = cloudEventOf(jsonOf(message));
    const reading = envelope ? options.read(envelope) : undefined;
    if (reading?.outcome === 'read') return reading.event;
    if (reading?.outcome === 'unknown') {
      logger.debug(
        { durable, type: envelope?.type },
        'passing over a domain event of a type this release does not know',
      );
      message.ack();
      return undefined;
    }
    logger.error(
      {
        durable,
        subject: message.subject,
        seq: message.seq,
        problem: reading?.problem ?? 'not a CloudEvent',
      },
      'dropping a malformed domain event',
    );
    // No reason with it: nats-server 2.9 takes only a bare +TERM, and would leave the message to
    // be redelivered, and refused again, after every ack wait (the log line says why).
    message.term();
    return undefined;
  };

  const handleOne = async (message: JsMsg, event: E): Promise<void> => {
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
  const handleMany = async (batch: Array<{ message: JsMsg; event: E }>): Promise<void> => {
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
        const batch: Array<{ message: JsMsg; event: E }> = [];
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

function consumerAttributes(durable: string, event: CloudEvent): Record<string, string> {
  return {
    'messaging.system': 'nats',
    'messaging.consumer.group.name': durable,
    'messaging.message.id': event.id,
  };
}

function jsonOf(message: JsMsg): unknown {
  try {
    return message.json<unknown>();
  } catch {
    return undefined;
  }
}
