import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import {
  DomainError,
  domainEventCatalog,
  isDomainEventType,
  type CloudEvent,
  type Contract,
  type DomainEventSpec,
  type Envelope,
  type MessageMeta,
  type ReplyOf,
  type RequestOf,
} from '@townhall/contracts';
import {
  createLogger,
  InProcessBroker,
  InProcessEventLog,
  inProcessTransport,
  readDomainEvent,
  startService,
  subjectMatches,
  type AnyDomainService,
  type Logger,
  type ServiceClient,
  type ServiceDefinition,
  type StartedService,
} from '@townhall/platform/service';
import pg from 'pg';
import type { LevelWithSilent } from 'pino';
import type { z } from 'zod';
import { createTestDatabase, type TestDatabase } from './postgres.js';
import { migrateForTests } from './schema-upgrade.js';

type AnyContract = Contract<z.ZodType, unknown>;

/**
 * The service tier of tests, between unit and e2e: one service's real ServiceDefinition (its
 * Nest module, handlers, pipes, filters, outbox and domain-event consumers) on the in-process
 * transport, against a PostgreSQL database of its own, migrated once (afresh, or by the upgrade
 * path: `migrateForTests`). Tests send its contracts as the gateway does (a caller, or none for
 * public reads), stand in for the other services' contracts it calls (`answer`), deliver domain
 * events to its consumers (`deliver`), read what it published (`published`) and query its
 * tables. No HTTP, no NATS, no other service.
 */
export class ServiceHarness {
  private readonly stubs: Array<{ close(): Promise<void> }> = [];
  private readonly replicas: Array<() => Promise<void>> = [];

  private constructor(
    /** The domain events the service published (relayed from its outbox), oldest first. */
    readonly published: CloudEvent[],
    readonly database: TestDatabase,
    private readonly definition: ServiceDefinition,
    private readonly service: StartedService,
    private readonly broker: InProcessBroker,
    private readonly log: InProcessEventLog,
    private readonly client: ServiceClient,
    private readonly pool: pg.Pool,
    private readonly unfollow: () => void,
    private readonly domainService: AnyDomainService,
    private readonly env: Record<string, string>,
    private readonly logger: Logger,
  ) {}

  static async start(service: AnyDomainService, env: Record<string, string> = {}): Promise<ServiceHarness> {
    const database = await createTestDatabase(`townhall_${service.name}`);
    try {
      // Afresh, or as a deployed database is upgraded (TOWNHALL_TEST_DATABASE=upgraded).
      await migrateForTests(service.dataSource, database.url);
      const level = (process.env['TOWNHALL_TEST_SERVICE_LOG_LEVEL'] ?? 'silent') as LevelWithSilent;
      const logger = createLogger(service.name, level);
      const broker = new InProcessBroker();
      const log = new InProcessEventLog();
      const published: CloudEvent[] = [];
      const unfollow = log.follow((event) => published.push(JSON.parse(event.payload) as CloudEvent));
      const settings = {
        DATABASE_URL: database.url,
        LOG_LEVEL: level,
        OUTBOX_POLL_INTERVAL_MS: '50',
        ...env,
      };
      const definition = await service.defineFrom(settings, logger);
      const started = await startService(definition, inProcessTransport(broker, log), { logger });
      return new ServiceHarness(
        published,
        database,
        definition,
        started,
        broker,
        log,
        broker.client(10_000),
        queryPool(database.url),
        unfollow,
        service,
        settings,
        logger,
      );
    } catch (error) {
      await database.drop();
      throw error;
    }
  }

  /**
   * Another replica of the service on the same database, as on a cluster: its periodic jobs and
   * its outbox relay race this one's, and what it publishes joins `published`. Requests still
   * go to the first; the replica's consumers take the domain events its `deliver` hands over.
   * `stop()` stops every replica.
   */
  async startReplica(): Promise<{ deliver(event: CloudEvent): Promise<void> }> {
    const definition = await this.domainService.defineFrom(this.env, this.logger);
    const log = new InProcessEventLog();
    const unfollow = log.follow((event) => this.published.push(JSON.parse(event.payload) as CloudEvent));
    const replica = await startService(definition, inProcessTransport(new InProcessBroker(), log), {
      logger: this.logger,
    });
    this.replicas.push(async () => {
      await replica.stop();
      unfollow();
    });
    return { deliver: (event) => log.publish(event) };
  }

  /** A request as the gateway sends it: signed by `caller`, or a public read (`null`). */
  send<C extends AnyContract>(
    contract: C,
    data: RequestOf<C>,
    caller: string | null = null,
  ): Promise<ReplyOf<C>> {
    return this.client.send(contract, data, { requestId: randomUUID(), caller });
  }

  /** Stands in for another service: `handler` answers `contract` (throw a DomainError to refuse). */
  answer<C extends AnyContract>(
    contract: C,
    handler: (data: RequestOf<C>, meta: MessageMeta) => ReplyOf<C> | Promise<ReplyOf<C>>,
  ): void {
    const server = this.broker.strategy(`stand-in for ${contract.pattern}`);
    server.addHandler(
      contract.pattern,
      async (envelope: Envelope<RequestOf<C>>) => handler(envelope.data, envelope.meta),
      false,
    );
    server.listen(() => undefined);
    this.stubs.push(server);
  }

  /** Delivers a domain event as the stream does; resolves once the service's consumers handled it. */
  deliver(event: CloudEvent): Promise<void> {
    return this.log.publish(event);
  }

  /**
   * Hands `event` to the service's consumers again, as JetStream does when an acknowledgement
   * was lost (the stream itself would not store the same id twice: `deliver` cannot do this).
   */
  async redeliver(event: CloudEvent): Promise<void> {
    const reading = readDomainEvent(event);
    if (reading.outcome !== 'read')
      throw new Error(`${event.type} ${event.id} is no domain event a consumer takes (${reading.outcome})`);
    for (const subscription of this.service.subscriptions)
      if (subscription.subjects.some((subject) => subjectMatches(subject, event.type)))
        await subscription.handle(reading.event);
  }

  /**
   * The SQL statements `work` sent to Postgres: every query of the DataSource's connections made in
   * its async context (BEGIN and COMMIT included), so that what the service's periodic jobs run
   * meanwhile (the waitlist sweep, reconciliation, each on its own timer) is not counted, nor the
   * outbox relay's passes (woken by the work's commit, within its context). Count one request at a
   * time: two of them at once share nothing that tells their statements apart.
   */
  async statementsDuring<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
    const pool = (this.definition.dataSource.driver as unknown as { master: pg.Pool }).master;
    const client = await pool.connect();
    const prototype = Object.getPrototypeOf(client) as { query: (...args: unknown[]) => unknown };
    client.release();
    const original = prototype.query;
    const statements: string[] = [];
    const request = new AsyncLocalStorage<true>();
    prototype.query = function (this: unknown, ...args: unknown[]) {
      const [config] = args;
      const text = typeof config === 'string' ? config : (config as { text?: string }).text;
      if (request.getStore() && text !== undefined && !RELAY_PASS.test(text))
        statements.push(text.replace(/\s+/g, ' ').trim());
      return original.apply(this, args);
    };
    try {
      return { result: await request.run(true, work), statements };
    } finally {
      prototype.query = original;
    }
  }

  /**
   * The published domain events that are not what domainEventCatalog says their type carries
   * (the AsyncAPI document's promise): a type without an entry, data its schema refuses, or a
   * staff-only type announced without `visibility: "staff"`. Empty when the service keeps it.
   */
  offCatalog(): Array<{ type: string; id: string; problem: string }> {
    return this.published.flatMap((event) => {
      const off = (problem: string) => [{ type: event.type, id: event.id, problem }];
      if (!isDomainEventType(event.type)) return off('not in domainEventCatalog');
      const spec: DomainEventSpec = domainEventCatalog[event.type];
      const parsed = spec.data.safeParse(event.data);
      if (!parsed.success) return off(parsed.error.message);
      if (spec.visibility === 'staff' && event.visibility !== 'staff')
        return off('a staff-only type without visibility "staff"');
      return [];
    });
  }

  /**
   * Resolves once the service's outbox is empty: every domain event it committed so far was
   * published (it is in `published`) and its row deleted. Then `published` is what the service
   * announced, each event once.
   */
  async settled(timeoutMs = 10_000): Promise<void> {
    const schema = this.definition.outbox?.schema;
    if (!schema) return;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [row] = await this.query<{ left: number }>(
        `SELECT count(*)::int AS left FROM "${schema}".outbox`,
      );
      if (row?.left === 0) return;
      if (Date.now() > deadline) throw new Error(`${row?.left} domain events still in the ${schema} outbox`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async query<Row extends object>(sql: string, params: unknown[] = []): Promise<Row[]> {
    return (await this.pool.query<Row>(sql, params)).rows;
  }

  async stop(): Promise<void> {
    await Promise.all(this.replicas.map((stop) => stop()));
    this.unfollow();
    await Promise.all(this.stubs.map((stub) => stub.close()));
    await this.service.stop();
    await this.pool.end();
    await this.database.drop();
  }
}

/** The outbox relay's statements (claim, delete, release, prune, stats): not the request's. */
const RELAY_PASS = /claimed_until|published_at|^DELETE FROM "\w+"\.outbox /;

/**
 * The tests' own connections. An idle one may be cut when the database is dropped at the end
 * (pg's pool.end() resolves before every socket has closed): that is no error of the test's.
 */
function queryPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  return pool;
}

/** The DomainError a service request is refused with (a service test's `problemOf`); fails if it succeeds. */
export async function refusalOf(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}
