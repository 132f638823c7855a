import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import {
  JetStreamApiCodes,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import { TOWNHALL_STREAM, type CloudEvent } from '@townhall/contracts';
import { pino, type Logger } from 'pino';
import type { DataSource, EntityManager } from 'typeorm';
import { connectionHolder, createSchemaDataSource } from '../src/database.js';
import {
  JetStreamPublisher,
  OutboxRelay,
  appendToOutbox,
  claimEventOnce,
  claimEventsOnce,
  consumeDomainEvents,
  domainEvent,
  ensureTownhallStream,
  outboxMigrationSql,
  type ConsumerGate,
  type DomainEventPublisher,
  type DomainEventReading,
  type OutboxRelayOptions,
  OutboxWriter,
} from '../src/outbox/index.js';
import { createTestDatabase, NATS_URL, PrivateNatsServer, type TestDatabase } from '@townhall/testing';

// Real PostgreSQL and NATS (docs/development.md). The TOWNHALL stream on the shared NATS is shared
// with other tests, so every subject and durable here carries this run's id.
const RUN = randomBytes(4).toString('hex');
const SUBJECT_ROOT = `townhall.outboxtest${RUN}`;

const silent = pino({ level: 'silent' });
let database: TestDatabase;
let dataSource: DataSource;
let nc: NatsConnection;
let jsm: JetStreamManager;
let cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  database = await createTestDatabase('outbox_test');
  dataSource = createSchemaDataSource({
    url: database.url,
    schema: 'outbox',
    entities: [],
    migrations: [],
  });
  await dataSource.initialize();
  nc = await connect({ servers: NATS_URL });
  await ensureTownhallStream(nc);
  jsm = await jetstreamManager(nc);
});

afterEach(async () => {
  const pending = cleanups.reverse();
  cleanups = [];
  for (const cleanup of pending) await cleanup();
});

afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
  if (nc) {
    await jsm.streams.purge(TOWNHALL_STREAM, { filter: `${SUBJECT_ROOT}.>` });
    await nc.close();
  }
});

describe('transactional outbox and JetStream relay', () => {
  it('publishes a committed event exactly once and never one whose transaction rolled back', async () => {
    const schema = await newOutbox('a');
    const consumer = await startConsumer('a', schema);
    const rolledBack = testEvent('a', 1);
    await expect(
      dataSource.transaction(async (manager) => {
        await appendToOutbox(manager, schema, [rolledBack]);
        throw new Error('the state change failed');
      }),
    ).rejects.toThrow('the state change failed');
    const committed = testEvent('a', 2);
    await commit(schema, [committed]);

    const relay = newRelay(schema);
    expect(await relay.relayOnce()).toBe(1);
    expect(await relay.relayOnce()).toBe(0);

    await waitFor('the committed event', () => consumer.deliveries.length >= 1);
    await sleep(300);
    expect(consumer.deliveries.map((event) => event.id)).toEqual([committed.id]);
    expect(await storedMessages(`${SUBJECT_ROOT}.a.>`)).toBe(1);
    expect(await effects(schema)).toEqual([committed.id]);
    // Acknowledged by JetStream, its row is deleted: the stream is the record from then on.
    expect(await outboxRows(schema)).toEqual([]);
  });

  it('never publishes again a row that a relay of the release before marked published, and deletes it', async () => {
    const schema = await newOutbox('marked');
    const [marked, waiting] = [testEvent('marked', 1), testEvent('marked', 2)];
    await commit(schema, [marked, waiting]);
    // How the release before settled a published event: its row kept, published_at set.
    await dataSource.query(`UPDATE ${schema}.outbox SET published_at = now() WHERE id = $1`, [marked.id]);

    const relay = newRelay(schema);
    expect(await relay.relayOnce()).toBe(1);
    expect(await storedMessages(`${SUBJECT_ROOT}.marked.>`)).toBe(1);
    const stored = await jsm.streams.getMessage(TOWNHALL_STREAM, { last_by_subj: waiting.type });
    expect(stored?.json<CloudEvent>().id).toBe(waiting.id);
    expect(await outboxRows(schema)).toEqual([]);
  });

  it('refuses to append or claim outside a transaction', async () => {
    const schema = await newOutbox('tx');
    await expect(appendToOutbox(dataSource.manager, schema, [testEvent('tx', 1)])).rejects.toThrow(
      'running transaction',
    );
    await expect(claimEventOnce(dataSource.manager, schema, 'c', testEvent('tx', 2).id)).rejects.toThrow(
      'running transaction',
    );
    expect(() =>
      domainEvent({ source: 's', type: 'townhall.bad subject', subject: 'x', data: {} }),
    ).toThrow();
  });

  it('republishes after a relay dies between publish and delete; the consumer applies the event once', async () => {
    const schema = await newOutbox('b');
    // The consumer also dies once between committing its effect and acking, so the event reaches
    // it again and only claimEventOnce stands between it and a second effect.
    const consumer = await startConsumer('b', schema, { failOnceAfterCommit: true });
    const event = testEvent('b', 1);
    await commit(schema, [event]);

    const real = new JetStreamPublisher(nc);
    const publishedBeforeDying: string[] = [];
    let die: (error: Error) => void = () => undefined;
    const dead = new Promise<never>((_resolve, reject) => {
      die = reject;
    });
    const dying: DomainEventPublisher = {
      async publish(outgoing) {
        await real.publish(outgoing);
        publishedBeforeDying.push(outgoing.id);
        return dead;
      },
    };
    const first = newRelay(schema, { publisher: dying, leaseMs: 1_000 });
    // Registered after the relay's own stop, so it runs first: a failed assertion must not leave
    // stop() waiting on a publish that never ends.
    cleanups.push(async () => die(new Error('test over')));
    const firstPass = first.relayOnce();
    await waitFor('the first relay to publish', () => publishedBeforeDying.length === 1);
    expect(await outboxRows(schema)).toEqual([{ id: event.id, published: false }]);

    const restarted = newRelay(schema, { leaseMs: 1_000 });
    expect(await restarted.relayOnce()).toBe(0); // still under the dead relay's lease
    await sleep(1_100);
    expect(await restarted.relayOnce()).toBe(1);
    expect(await outboxRows(schema)).toEqual([]);
    // Same Nats-Msg-Id within the duplicate window: JetStream kept one copy.
    expect(await storedMessages(`${SUBJECT_ROOT}.b.>`)).toBe(1);

    // A republish after the duplicate window is a second copy in the stream; the consumer skips it.
    await jetstream(nc).publish(event.type, JSON.stringify(event));
    await waitFor('three deliveries', () => consumer.deliveries.length === 3);
    await sleep(300);
    expect(consumer.deliveries.map((delivery) => delivery.id)).toEqual([event.id, event.id, event.id]);
    expect(await effects(schema)).toEqual([event.id]);

    die(new Error('the first relay process is gone'));
    expect(await firstPass).toBe(0);
    expect(await outboxRows(schema)).toEqual([]);
  });

  it("takes over at once the batch of a relay whose process is gone, well within that relay's lease", async () => {
    const schema = await newOutbox('takeover');
    const events = Array.from({ length: 3 }, (_, n) => testEvent('takeover', n));
    await commit(schema, events);
    // The first relay's process: a DataSource of its own (its own application_name), which claims
    // the batch, publishes its first event and never returns from the others (they are all sent
    // at once), then loses its connections as a killed process does.
    const doomed = createSchemaDataSource({
      url: database.url,
      schema: 'outbox',
      entities: [],
      migrations: [],
    });
    await doomed.initialize();
    const real = new JetStreamPublisher(nc);
    let published = 0;
    const stuck = new Promise<never>(() => undefined);
    const first = new OutboxRelay({
      dataSource: doomed,
      schema,
      logger: silent,
      leaseMs: 60_000,
      publisher: {
        async publish(outgoing) {
          if (outgoing.id !== events[0]!.id) return stuck;
          await real.publish(outgoing);
          published += 1;
        },
      },
    });
    void first.relayOnce();
    await waitFor('the first relay to publish one event', () => published === 1);
    const claims = await dataSource.query<Array<{ claimed_by: string }>>(
      `SELECT DISTINCT claimed_by FROM ${schema}.outbox WHERE published_at IS NULL`,
    );
    expect(claims).toEqual([{ claimed_by: connectionHolder(doomed) }]);

    // While that process lives, its claim holds: another relay takes nothing.
    const other = newRelay(schema, { leaseMs: 60_000 });
    expect(await other.relayOnce()).toBe(0);
    await doomed.destroy();
    await waitFor('Postgres to see the first process gone', async () => {
      const rows = await dataSource.query<unknown[]>(
        'SELECT 1 FROM pg_stat_activity WHERE application_name = $1',
        [connectionHolder(doomed)],
      );
      return rows.length === 0;
    });
    const started = performance.now();
    expect(await other.relayOnce()).toBe(3);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await unpublished(schema)).toBe(0);
    // The event the first relay had published is one message in the stream, not two.
    expect(await storedMessages(`${SUBJECT_ROOT}.takeover.>`)).toBe(3);
  });

  it('settles a batch the database dropped after publishing on the next pass, not when the lease ends', async () => {
    const schema = await newOutbox('f');
    const events = Array.from({ length: 3 }, (_, n) => testEvent('f', n));
    await commit(schema, events);
    // The connection ends (pg_terminate_backend's 57P01) under the first delete and the first
    // give-back: the batch was published, its outcome never written.
    const dropped = new Set<string>();
    const dropping = (statement: string): boolean => {
      if (dropped.has(statement)) return false;
      dropped.add(statement);
      return true;
    };
    const flaky = new Proxy(dataSource, {
      get(target, property, receiver) {
        if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
        return async (sql: string, parameters?: unknown[]) => {
          const statement = /^DELETE FROM/.test(sql)
            ? 'delete'
            : /SET claimed_until = NULL/.test(sql)
              ? 'release'
              : '';
          if (statement !== '' && dropping(statement))
            throw Object.assign(new Error('terminating connection due to administrator command'), {
              code: '57P01',
            });
          return target.query(sql, parameters);
        };
      },
    });
    // The first two are published, the third is left, to give back.
    let failThird = true;
    const real = new JetStreamPublisher(nc);
    const relay = newRelay(schema, {
      dataSource: flaky,
      leaseMs: 60_000,
      publisher: {
        async publish(event) {
          if (failThird && event.id === events[2]!.id) throw new Error('NATS went away too');
          await real.publish(event);
        },
      },
    });

    await expect(relay.relayOnce()).rejects.toMatchObject({ code: '57P01' });
    expect(await unpublished(schema)).toBe(3);
    // The next pass deletes the two published events and then fails to give the third back.
    await expect(relay.relayOnce()).rejects.toMatchObject({ code: '57P01' });
    expect(await outboxRows(schema)).toEqual([{ id: events[2]!.id, published: false }]);
    failThird = false;
    // Given back, claimed again and published at once: nothing waits out the 60 s lease.
    expect(await relay.relayOnce()).toBe(1);
    expect(await unpublished(schema)).toBe(0);
    expect(await storedMessages(`${SUBJECT_ROOT}.f.>`)).toBe(3);
  });

  it('delivers 50 events committed while the relay was down, in seq order, to a consumer that was down too', async () => {
    const schema = await newOutbox('c');
    // The durable exists, then its service goes down: it must catch up from where it was.
    const early = await startConsumer('c', schema);
    await early.stop();

    const events = Array.from({ length: 50 }, (_, n) => testEvent('c', n));
    for (const event of events) await commit(schema, [event]);
    const relay = newRelay(schema, { batchSize: 20, pollIntervalMs: 50 });
    relay.start();
    await waitFor('the outbox to drain', async () => (await unpublished(schema)) === 0);

    const consumer = await startConsumer('c', schema);
    await waitFor('50 deliveries', () => consumer.deliveries.length === 50);
    expect(consumer.deliveries.map((event) => event.id)).toEqual(events.map((event) => event.id));
    expect(consumer.deliveries.map((event) => (event.data as { n: number }).n)).toEqual(
      events.map((_, n) => n),
    );
  });

  it('shares the outbox between two concurrent relays without losing or doubling an event', async () => {
    const schema = await newOutbox('d');
    const consumer = await startConsumer('d', schema);
    const real = new JetStreamPublisher(nc);
    const publishedBy = { one: [] as string[], two: [] as string[] };
    // A little latency per publish, so that the two relays' passes overlap.
    const slowed = (into: string[]): DomainEventPublisher => ({
      async publish(event) {
        await sleep(3);
        await real.publish(event);
        into.push(event.id);
      },
    });
    const one = newRelay(schema, { publisher: slowed(publishedBy.one), batchSize: 5, pollIntervalMs: 20 });
    const two = newRelay(schema, { publisher: slowed(publishedBy.two), batchSize: 5, pollIntervalMs: 20 });
    const events = Array.from({ length: 50 }, (_, n) => testEvent('d', n));
    one.start();
    two.start();
    await Promise.all(
      events.map(async (event) => {
        await commit(schema, [event]);
        one.wake();
        two.wake();
      }),
    );

    await waitFor('50 effects', async () => (await effects(schema)).length === 50);
    await sleep(300);
    expect((await effects(schema)).length).toBe(50);
    expect(new Set(await effects(schema))).toEqual(new Set(events.map((event) => event.id)));
    expect(await unpublished(schema)).toBe(0);
    expect(publishedBy.one.length + publishedBy.two.length).toBe(50);
    expect(publishedBy.one.length).toBeGreaterThan(0);
    expect(publishedBy.two.length).toBeGreaterThan(0);
    expect(consumer.deliveries.length).toBe(50);
  });

  it('keeps events in the outbox while NATS is unreachable and delivers them once it is back', async () => {
    const server = await PrivateNatsServer.start({ authorization: false });
    cleanups.push(() => server.destroy());
    const privateNc = await connect({
      servers: server.url,
      reconnectTimeWait: 100,
      maxReconnectAttempts: -1,
    });
    cleanups.push(() => privateNc.close());
    await retry(() => ensureTownhallStream(privateNc));

    const schema = await newOutbox('e');
    const log = capturingLogger();
    const relay = newRelay(schema, {
      publisher: new JetStreamPublisher(privateNc, { timeoutMs: 300 }),
      pollIntervalMs: 100,
      logger: log.logger,
    });
    await server.stop();
    const events = Array.from({ length: 5 }, (_, n) => testEvent('e', n));
    await commit(schema, events);

    relay.start();
    await sleep(1_500);
    expect(await unpublished(schema)).toBe(5);
    expect(await relay.relayOnce()).toBe(0);
    expect(log.lines.some((line) => line.level === 40 && /publish failed/.test(String(line.msg)))).toBe(true);

    await server.restart();
    await waitFor(
      'the outbox to drain after recovery',
      async () => (await unpublished(schema)) === 0,
      30_000,
    );
    expect(log.lines.some((line) => /publishing again/.test(String(line.msg)))).toBe(true);

    const privateJsm = await jetstreamManager(privateNc);
    const info = await privateJsm.streams.info(TOWNHALL_STREAM, { subjects_filter: `${SUBJECT_ROOT}.e.>` });
    // A publish sent just before the drop may have landed anyway; its republish was a duplicate.
    expect(Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0)).toBe(5);
    const consumer = await startConsumer('e', schema, { connection: privateNc });
    await waitFor('5 deliveries', () => consumer.deliveries.length === 5);
    expect(consumer.deliveries.map((event) => event.id)).toEqual(events.map((event) => event.id));
  });

  it('creates the TOWNHALL stream once and leaves an existing one as it is', async () => {
    const server = await PrivateNatsServer.start({ authorization: false });
    cleanups.push(() => server.destroy());
    const privateNc = await connect({ servers: server.url });
    cleanups.push(() => privateNc.close());
    const privateJsm = await retry(() => jetstreamManager(privateNc));

    await Promise.all([
      ensureTownhallStream(privateNc),
      ensureTownhallStream(privateNc),
      ensureTownhallStream(privateNc),
    ]);
    const created = (await privateJsm.streams.info(TOWNHALL_STREAM)).config;
    expect(created).toMatchObject({
      name: 'TOWNHALL',
      subjects: ['townhall.>'],
      storage: 'file',
      retention: 'limits',
      discard: 'old',
      max_age: nanos(30 * 24 * 60 * 60 * 1_000),
      duplicate_window: nanos(2 * 60 * 1_000),
    });

    await ensureTownhallStream(privateNc);
    expect((await privateJsm.streams.info(TOWNHALL_STREAM)).config).toEqual(created);

    // An operator's change to the stream survives the next service start.
    await privateJsm.streams.update(TOWNHALL_STREAM, { max_age: nanos(60 * 60 * 1_000) });
    await ensureTownhallStream(privateNc);
    expect((await privateJsm.streams.info(TOWNHALL_STREAM)).config.max_age).toBe(nanos(60 * 60 * 1_000));

    // And the shared server's stream (created in beforeAll, or by someone else) is still there.
    await ensureTownhallStream(nc);
    expect((await jsm.streams.info(TOWNHALL_STREAM)).config.subjects).toContain('townhall.>');
  });

  it('delivers only the subjects a consumer asked for, several at once', async () => {
    const schema = await newOutbox('g');
    const base = `${SUBJECT_ROOT}.g`;
    const consumer = await startConsumer('g', schema, { subjects: [`${base}.opened`, `${base}.*.closed`] });
    const wanted = [
      domainEvent({ source: 'townhall/test', type: `${base}.opened`, subject: 'x', data: { n: 0 } }),
      domainEvent({ source: 'townhall/test', type: `${base}.poll.closed`, subject: 'x', data: { n: 1 } }),
    ];
    const ignored = domainEvent({
      source: 'townhall/test',
      type: `${base}.poll.opened`,
      subject: 'x',
      data: {},
    });
    await commit(schema, [wanted[0]!, ignored, wanted[1]!]);
    expect(await newRelay(schema).relayOnce()).toBe(3);
    await waitFor('2 deliveries', () => consumer.deliveries.length === 2);
    await sleep(300);
    expect(consumer.deliveries.map((event) => event.id)).toEqual(wanted.map((event) => event.id));
  });

  it('drops an event its reader refuses (logged, never redelivered), passes over an unknown type, and goes on', async () => {
    const schema = await newOutbox('poison');
    const durable = `outboxtest_${RUN}_poison`;
    const base = `${SUBJECT_ROOT}.poison`;
    const { logger, lines } = capturingLogger();
    const handled: number[] = [];
    const consumer = await consumeDomainEvents({
      nc,
      durable,
      subjects: [`${base}.>`],
      logger,
      read: readTestEvent,
      retryDelayMs: 100,
      handle: async (event) => void handled.push(event.data.n),
    });
    cleanups.push(() => deleteDurable(nc, durable));
    cleanups.push(() => consumer.stop());
    const malformed = domainEvent({
      source: 'townhall/test',
      type: `${base}.created`,
      subject: 'x',
      data: {},
    });
    const unknown = domainEvent({ source: 'townhall/test', type: `${base}.renamed`, subject: 'x', data: {} });
    await commit(schema, [malformed, unknown, testEvent('poison', 1)]);
    expect(await newRelay(schema).relayOnce()).toBe(3);
    await waitFor('the event after them', async () => handled.length === 1);
    // Well past the retry delay: neither comes again.
    await sleep(500);
    expect(handled).toEqual([1]);
    const info = await jsm.consumers.info(TOWNHALL_STREAM, durable);
    expect([info.num_pending, info.num_ack_pending, info.num_redelivered]).toEqual([0, 0, 0]);
    expect(lines.filter((line) => line['msg'] === 'dropping a malformed domain event')).toEqual([
      expect.objectContaining({ level: 50, durable, problem: 'no number n' }),
    ]);
    expect(lines.filter((line) => line['type'] === unknown.type)).toEqual([
      expect.objectContaining({
        level: 20,
        msg: 'passing over a domain event of a type this release does not know',
      }),
    ]);
  });

  it('hands a batch handler what has arrived, in order, each effect once; a failing batch is retried one by one', async () => {
    const schema = await newOutbox('h');
    const durable = `outboxtest_${RUN}_h`;
    // The durable exists, then its service goes down while 150 events are committed and relayed.
    const early = await consumeDomainEvents({
      nc,
      durable,
      subjects: [`${SUBJECT_ROOT}.h.>`],
      logger: silent,
      read: readTestEvent,
      handle: async () => undefined,
      handleBatch: async () => undefined,
    });
    await early.stop();
    cleanups.push(() => deleteDurable(nc, durable));
    const events = Array.from({ length: 150 }, (_, n) => testEvent('h', n));
    const poison = events[70]!;
    for (const event of events) await commit(schema, [event]);
    const relay = newRelay(schema, { batchSize: 150 });
    expect(await relay.relayOnce()).toBe(150);

    const batches: number[] = [];
    const alone: string[] = [];
    const apply = async (manager: EntityManager, ids: string[]) => {
      for (const id of ids) await manager.query(`INSERT INTO ${schema}.effects (event_id) VALUES ($1)`, [id]);
    };
    const consumer = await consumeDomainEvents({
      nc,
      durable,
      subjects: [`${SUBJECT_ROOT}.h.>`],
      logger: silent,
      read: readTestEvent,
      retryDelayMs: 200,
      async handleBatch(batch) {
        batches.push(batch.length);
        await dataSource.transaction(async (manager) => {
          const fresh = await claimEventsOnce(
            manager,
            schema,
            durable,
            batch.map((event) => event.id),
          );
          await apply(
            manager,
            batch.filter((event) => fresh.has(event.id)).map((event) => event.id),
          );
          if (batch.some((event) => event.id === poison.id)) throw new Error('one bad event in the batch');
        });
      },
      async handle(event) {
        alone.push(event.id);
        await dataSource.transaction(async (manager) => {
          if (await claimEventOnce(manager, schema, durable, event.id)) await apply(manager, [event.id]);
        });
      },
    });
    cleanups.push(() => consumer.stop());
    await waitFor('150 effects', async () => (await effects(schema)).length === 150);
    await sleep(300);
    // Every event exactly once, in stream order within each batch and across them.
    expect(await effects(schema)).toEqual(events.map((event) => event.id));
    // Fewer calls than events: what had arrived was handled at once (the first batch may be small).
    expect(batches.length).toBeLessThan(30);
    expect(Math.max(...batches)).toBeGreaterThan(10);
    // The failed batch was handled again one event at a time, the poison one included.
    expect(alone).toContain(poison.id);
    expect(alone.length).toBeLessThanOrEqual(100);
  });

  it('with gatherMs, a batch waits for the events that trickle in after its first', async () => {
    const schema = await newOutbox('gather');
    const durable = `outboxtest_${RUN}_gather`;
    const batches: number[][] = [];
    const consumer = await consumeDomainEvents({
      nc,
      durable,
      subjects: [`${SUBJECT_ROOT}.gather.>`],
      logger: silent,
      read: readTestEvent,
      gatherMs: 300,
      handle: async (event) => void batches.push([event.data.n]),
      handleBatch: async (batch) => void batches.push(batch.map((event) => event.data.n)),
    });
    cleanups.push(() => deleteDurable(nc, durable));
    cleanups.push(() => consumer.stop());
    const relay = newRelay(schema);
    // 20 events, one relayed every 5 ms: without gathering, each would be a batch of its own.
    const began = performance.now();
    for (let n = 0; n < 20; n += 1) {
      await commit(schema, [testEvent('gather', n)]);
      await relay.relayOnce();
      await sleep(5);
    }
    const trickled = performance.now() - began;
    await waitFor('20 events handled', async () => batches.flat().length === 20);
    expect(batches.flat()).toEqual(Array.from({ length: 20 }, (_, n) => n));
    // One batch per 300 ms the events took to arrive, and the first: 3 where they arrive within
    // 600 ms, more on a machine where 20 commits and relays take longer.
    expect(batches.length).toBeLessThanOrEqual(Math.ceil(trickled / 300) + 1);
    expect(batches.length).toBeLessThan(10);
  });

  it('behind a closed gate pulls nothing, and once it opens takes up every event since, in order', async () => {
    const schema = await newOutbox('gate');
    const durable = `outboxtest_${RUN}_gate`;
    const gate = new TestGate(false);
    const handled: number[] = [];
    const consumer = await consumeDomainEvents({
      nc,
      durable,
      subjects: [`${SUBJECT_ROOT}.gate.>`],
      logger: silent,
      read: readTestEvent,
      gate,
      handle: async (event) => void handled.push(event.data.n),
      handleBatch: async (batch) => void handled.push(...batch.map((event) => event.data.n)),
    });
    cleanups.push(() => deleteDurable(nc, durable));
    cleanups.push(() => consumer.stop());
    const relay = newRelay(schema);
    const publish = async (from: number, to: number) => {
      for (let n = from; n < to; n += 1) await commit(schema, [testEvent('gate', n)]);
      while ((await relay.relayOnce()) > 0);
    };
    await publish(0, 10);
    await sleep(300);
    // Closed from the start: nothing handled, nothing even delivered by NATS.
    expect(handled).toEqual([]);
    let info = await jsm.consumers.info(TOWNHALL_STREAM, durable);
    expect(info.delivered.consumer_seq).toBe(0);
    expect(info.num_pending).toBe(10);

    gate.set(true);
    await waitFor('the first 10', async () => handled.length === 10);
    await publish(10, 15);
    await waitFor('5 more while open', async () => handled.length === 15);

    // Closed again: what is published meanwhile waits in the stream, and comes once it opens.
    gate.set(false);
    await sleep(100);
    await publish(15, 40);
    await sleep(300);
    expect(handled).toHaveLength(15);
    info = await jsm.consumers.info(TOWNHALL_STREAM, durable);
    expect(info.num_pending).toBe(25);
    gate.set(true);
    await waitFor('all 40', async () => handled.length === 40);
    await sleep(200);
    expect(handled).toEqual(Array.from({ length: 40 }, (_, n) => n));
    // A stop while closed, and one while open, both end at once.
    gate.set(false);
    await consumer.stop();
  });
});
describe('publishing at once after commit (OutboxWriter, OutboxRelay.publishCommitted)', () => {
  /** The relay's statements, as it sends them. */
  function recording(): { dataSource: DataSource; statements: string[] } {
    const statements: string[] = [];
    const proxy = new Proxy(dataSource, {
      get(target, property, receiver) {
        if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
        return (sql: string, parameters?: unknown[]) => {
          statements.push(sql);
          return target.query(sql, parameters);
        };
      },
    });
    return { dataSource: proxy, statements };
  }
  const isClaim = (sql: string) => /SET claimed_until = now\(\)/.test(sql);
  const isDelete = (sql: string) => /^DELETE FROM/.test(sql);

  it('publishes what a transaction committed without a claim, deletes it in one statement, and no pass sends it again', async () => {
    const schema = await newOutbox('direct');
    const { dataSource: relayData, statements } = recording();
    const relay = newRelay(schema, { dataSource: relayData, pollIntervalMs: 60_000, markEveryMs: 100 });
    relay.start();
    await waitFor('the first pass at start', () => statements.some(isClaim));
    statements.length = 0;
    const writer = new OutboxWriter(dataSource, relay, { schema, source: 'townhall/outbox-test' });
    const type = `${SUBJECT_ROOT}.direct.created`;
    await Promise.all(
      Array.from({ length: 5 }, (_, n) =>
        writer.run((manager) => writer.announce(manager, [{ type, subject: `aggregate-${n}`, data: { n } }])),
      ),
    );
    await waitFor('the events deleted', async () => (await unpublished(schema)) === 0);
    expect(await storedMessages(`${SUBJECT_ROOT}.direct.>`)).toBe(5);
    expect(statements.filter(isClaim)).toEqual([]);
    expect(statements.filter(isDelete).length).toBeLessThanOrEqual(2);
    // A pass asked for now finds nothing left to publish.
    expect(await relay.relayOnce()).toBe(0);
    expect(await storedMessages(`${SUBJECT_ROOT}.direct.>`)).toBe(5);
  });

  it('a rolled-back run and a refused statement publish nothing; a committed statement publishes what its result names', async () => {
    const schema = await newOutbox('verdict');
    const relay = newRelay(schema, { pollIntervalMs: 60_000 });
    relay.start();
    const writer = new OutboxWriter(dataSource, relay, { schema, source: 'townhall/outbox-test' });
    const type = `${SUBJECT_ROOT}.verdict.created`;
    await expect(
      writer.run(async (manager) => {
        await writer.announce(manager, [{ type, subject: 'rolled-back', data: {} }]);
        throw new Error('the state change failed');
      }),
    ).rejects.toThrow('the state change failed');
    // A server-side function's stand-in: it appends its events only when it does not refuse.
    const call = (refuse: boolean) => {
      const events = writer.prepare([{ type, subject: refuse ? 'refused' : 'written', data: {} }]);
      return writer.runStatement(
        async () => {
          if (refuse) return 'refused' as const;
          await dataSource.transaction((manager) => appendToOutbox(manager, schema, events));
          return 'written' as const;
        },
        { committed: (outcome) => (outcome === 'written' ? events : []) },
      );
    };
    expect(await call(true)).toBe('refused');
    expect(await call(false)).toBe('written');
    await waitFor('the written event deleted', async () => (await unpublished(schema)) === 0);
    const stored = await jsm.streams.getMessage(TOWNHALL_STREAM, { last_by_subj: type });
    expect(stored?.json<CloudEvent>().subject).toBe('written');
    expect(await storedMessages(`${SUBJECT_ROOT}.verdict.>`)).toBe(1);
    expect(await outboxRows(schema)).toEqual([]);
  });

  it('leaves an event whose immediate publish failed to a pass, which publishes it once JetStream answers', async () => {
    const schema = await newOutbox('retry');
    const real = new JetStreamPublisher(nc);
    const failed = new Set<string>();
    const relay = newRelay(schema, {
      pollIntervalMs: 60_000,
      publisher: {
        async publish(event) {
          // Each event's first publish fails (a PubAck that never came), the next one succeeds.
          if (!failed.has(event.id)) {
            failed.add(event.id);
            throw new Error('no PubAck within the timeout');
          }
          await real.publish(event);
        },
      },
    });
    relay.start();
    const writer = new OutboxWriter(dataSource, relay, { schema, source: 'townhall/outbox-test' });
    const type = `${SUBJECT_ROOT}.retry.created`;
    await writer.run((manager) =>
      writer.announce(manager, [
        { type, subject: 'one', data: {} },
        { type, subject: 'two', data: {} },
      ]),
    );
    // Not the 60 s poll: the failure woke a pass.
    await waitFor('the pass to publish both', async () => (await unpublished(schema)) === 0, 5_000);
    expect(failed.size).toBe(2);
    expect(await storedMessages(`${SUBJECT_ROOT}.retry.>`)).toBe(2);
  });

  it("a poll leaves another process's newest rows to it, and takes them once they are older than sweepAfterMs (that process died)", async () => {
    const schema = await newOutbox('orphans');
    // Committed by a process that died before publishing them: no claim, nothing in flight here.
    await commit(schema, [testEvent('orphans', 1), testEvent('orphans', 2)]);
    const other = newRelay(schema, { sweepAfterMs: 500 });
    expect(await other.relayOnce(false)).toBe(0);
    await sleep(600);
    expect(await other.relayOnce(false)).toBe(2);
    expect(await unpublished(schema)).toBe(0);
  });
});

// ---- fixtures ----

/** A gate a test opens and closes. */
class TestGate implements ConsumerGate {
  private readonly listeners = new Set<(isOpen: boolean) => void>();
  constructor(public isOpen: boolean) {}
  set(isOpen: boolean): void {
    if (isOpen === this.isOpen) return;
    this.isOpen = isOpen;
    for (const listener of this.listeners) listener(isOpen);
  }
  onGateChange(listener: (isOpen: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** A schema of its own per test, so that no relay sees another test's rows. */
async function newOutbox(name: string): Promise<string> {
  const schema = `outbox_${name}`;
  await dataSource.query(`CREATE SCHEMA ${schema}`);
  for (const statement of outboxMigrationSql(schema)) await dataSource.query(statement);
  // Deliberately no unique constraint: a doubled effect must show up as two rows.
  await dataSource.query(`CREATE TABLE ${schema}.effects (n serial PRIMARY KEY, event_id uuid NOT NULL)`);
  return schema;
}

/** What these tests publish: an event of this run's own subjects, carrying `{ n }`. */
type TestEvent = CloudEvent<{ n: number }>;

/**
 * How these tests' consumers read what they are delivered: this run's subjects are no types of
 * domainEventCatalog (the stream is shared with other tests), so data with a number `n` is read,
 * a type ending in `.renamed` is one this release does not know, and anything else is malformed.
 */
function readTestEvent(event: CloudEvent): DomainEventReading<TestEvent> {
  if (event.type.endsWith('.renamed')) return { outcome: 'unknown' };
  const { data } = event;
  const n = typeof data === 'object' && data !== null && 'n' in data ? data.n : undefined;
  return typeof n === 'number'
    ? { outcome: 'read', event: { ...event, data: { n } } }
    : { outcome: 'malformed', problem: 'no number n' };
}

function testEvent(test: string, n: number): TestEvent {
  return domainEvent({
    source: 'townhall/outbox-test',
    type: `${SUBJECT_ROOT}.${test}.created`,
    subject: `aggregate-${n}`,
    data: { n },
  });
}

async function commit(schema: string, events: CloudEvent[]): Promise<void> {
  await dataSource.transaction((manager) => appendToOutbox(manager, schema, events));
}

function newRelay(schema: string, overrides: Partial<OutboxRelayOptions> = {}): OutboxRelay {
  const relay = new OutboxRelay({
    dataSource,
    schema,
    publisher: new JetStreamPublisher(nc),
    logger: silent,
    ...overrides,
  });
  cleanups.push(() => relay.stop());
  return relay;
}

interface TestConsumer {
  deliveries: TestEvent[];
  stop(): Promise<void>;
}

async function startConsumer(
  test: string,
  schema: string,
  options: { failOnceAfterCommit?: boolean; subjects?: string[]; connection?: NatsConnection } = {},
): Promise<TestConsumer> {
  const durable = `outboxtest_${RUN}_${test}`;
  const connection = options.connection ?? nc;
  const deliveries: TestEvent[] = [];
  let failed = false;
  const consumer = await consumeDomainEvents({
    nc: connection,
    durable,
    subjects: options.subjects ?? [`${SUBJECT_ROOT}.${test}.>`],
    logger: silent,
    read: readTestEvent,
    retryDelayMs: 200,
    async handle(event) {
      deliveries.push(event);
      await dataSource.transaction(async (manager) => {
        if (await claimEventOnce(manager, schema, durable, event.id)) {
          await manager.query(`INSERT INTO ${schema}.effects (event_id) VALUES ($1)`, [event.id]);
        }
      });
      if (options.failOnceAfterCommit && !failed) {
        failed = true;
        throw new Error('died after committing, before acking');
      }
    },
  });
  cleanups.push(async () => {
    await consumer.stop();
    await deleteDurable(connection, durable);
  });
  return { deliveries, stop: () => consumer.stop() };
}

async function deleteDurable(connection: NatsConnection, durable: string): Promise<void> {
  try {
    await (await jetstreamManager(connection)).consumers.delete(TOWNHALL_STREAM, durable);
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound))
      throw error;
  }
}

async function effects(schema: string): Promise<string[]> {
  const rows: Array<{ event_id: string }> = await dataSource.query(
    `SELECT event_id FROM ${schema}.effects ORDER BY n`,
  );
  return rows.map((row) => row.event_id);
}

async function outboxRows(schema: string): Promise<Array<{ id: string; published: boolean }>> {
  return dataSource.query(
    `SELECT id, published_at IS NOT NULL AS published FROM ${schema}.outbox ORDER BY seq`,
  );
}

/** The rows still in the outbox: an event's row is deleted once JetStream acknowledged it. */
async function unpublished(schema: string): Promise<number> {
  const [row] = (await dataSource.query(`SELECT count(*)::int AS count FROM ${schema}.outbox`)) as Array<{
    count: number;
  }>;
  return row?.count ?? -1;
}

async function storedMessages(filter: string): Promise<number> {
  const info = await jsm.streams.info(TOWNHALL_STREAM, { subjects_filter: filter });
  return Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0);
}

function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** For a server that was just started: JetStream may take a moment to answer. */
async function retry<T>(attempt: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(100);
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
