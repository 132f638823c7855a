import type { DynamicModule, INestMicroservice } from '@nestjs/common';
import { DiscoveryModule, NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { Server } from 'node:http';
import type { DataSource } from 'typeorm';
import type { Subscription } from './outbox/subscription.js';
import { busAppOf, type BusAccess } from '@townhall/contracts';
import { assertEveryHandlerProvided } from './discovery/handler-declarations.js';
import { assertDurablesGranted, busAccessOf, BusAccessClient } from './bus-access.js';
import { natsConnectionOptions } from './nats-connection.js';
import { discoverHandlers, type ServiceHandlers } from './discovery/service-handlers.js';
import { OutboxRelay } from './outbox/relay.js';
import { stopGracefullyOnSignal } from './graceful-stop.js';
import { createLogger, NestPinoLogger, type Logger } from './logger.js';
import { exitOnConfigError, loadConfig, type DomainServiceConfig } from './config.js';
import type { DomainModuleOptions } from './domain-module.js';
import { migrateSchema, openDataSource, type PoolSettings } from './database.js';
import type { LevelWithSilent } from 'pino';
import type { z } from 'zod';
import { openNatsTransport } from './transport/nats-transport.js';
import { startProbeServer } from './probes.js';
import { RemoteErrorFilter } from './remote-error.filter.js';
import { MessageInterceptor } from './observability/message-interceptor.js';
import {
  collectProcessMetrics,
  domainEventsHandled,
  observeOutbox,
  observePool,
  type PoolStats,
} from './observability/metrics.js';
import type { ServiceClient } from './service-client.js';
import type { ServiceTransport } from './transport/service-transport.js';

/** What a service's module is built with, whatever the transport. */
export interface ServiceLink {
  /** Requests to other services. */
  services: ServiceClient;
  /** The relay of the service's outbox (OutboxWriter wakes it after each commit). */
  relay: OutboxRelay;
}

/**
 * One domain service, independent of how it is run: `apps/<name>/src/main.ts` runs it alone
 * on NATS; standalone mode runs all of them in one process on the in-process transport.
 */
export interface ServiceDefinition {
  /** Also its NATS queue group, so replicas share the load. */
  name: string;
  /** Initialised; closed last on stop. */
  dataSource: DataSource;
  /**
   * The schema whose outbox holds the service's domain events; absent if it publishes none.
   * `held`: the relay never starts (only to test recovery: domain events wait in the outbox).
   */
  outbox?: { schema: string; pollIntervalMs: number; held?: boolean };
  /** How long its requests to other services may take. */
  serviceTimeoutMs: number;
  /**
   * Its module. Its providers' @OnDomainEvent methods become durable consumers, started once the
   * service listens, and their @Periodic methods jobs: found at start (discovery/), not listed here.
   */
  module(link: ServiceLink): DynamicModule;
  /** Its validated configuration: the settings that @Periodic's `every` names. */
  config: Readonly<Record<string, unknown>>;
  /**
   * What it may do on the bus (the calls it sends, the durables it binds): BUS_ACCESS's entry for
   * its name, unless given (a service of the platform's own tests, which is no app of the bus).
   */
  access?: BusAccess;
}

export interface ServiceRunOptions {
  logger: Logger;
  /** The /healthz and /readyz server of a service run alone. */
  probePort?: number | undefined;
  /**
   * false: the outbox relay waits for startRelay() (standalone starts them once every consumer
   * listens), and so does the check that every handler class loaded has a started service.
   */
  relay?: boolean;
}

export interface StartedService {
  name: string;
  app: INestMicroservice;
  /** Its durable consumers, as found on its providers. */
  subscriptions: readonly Subscription[];
  /**
   * Every service of the process has started: checks that each loaded handler class is provided
   * by one (throws HandlerDeclarationError naming those that are not), then starts publishing the
   * outbox (if it was held back).
   */
  startRelay(): void;
  /**
   * Stops in the safe order: consumers, jobs (the run in flight finishes), then new requests
   * (in-flight ones finish), relay, transport, database.
   */
  stop(): Promise<void>;
}

/** Starts a service on a transport: serving its contracts, consuming, relaying its outbox. */
export async function startService(
  definition: ServiceDefinition,
  transport: ServiceTransport,
  options: ServiceRunOptions,
): Promise<StartedService> {
  const { logger } = options;
  const { dataSource } = definition;
  const relay = definition.outbox
    ? new OutboxRelay({
        dataSource,
        schema: definition.outbox.schema,
        publisher: transport.publisher,
        logger,
        pollIntervalMs: definition.outbox.pollIntervalMs,
      })
    : undefined;
  const access = busAccessOf(definition);
  const link: ServiceLink = {
    services: new BusAccessClient(definition.name, access, transport.client(definition.serviceTimeoutMs)),
    get relay(): OutboxRelay {
      if (!relay) throw new Error(`${definition.name} declares no outbox`);
      return relay;
    },
  };
  const module = definition.module(link);
  const nest = await NestFactory.createMicroservice<MicroserviceOptions>(
    { ...module, imports: [...(module.imports ?? []), DiscoveryModule] },
    {
      ...(transport.microservice(definition.name) as MicroserviceOptions),
      logger: new NestPinoLogger(logger),
    },
  );
  // Alone in its process, every handler class it loaded must be its own; composed with others,
  // that is checked once they have all started (startRelay).
  const alone = options.relay !== false;
  let handlers: ServiceHandlers;
  try {
    handlers = discoverHandlers(nest, definition, logger);
    assertDurablesGranted(definition.name, access, handlers.subscriptions);
    if (alone) assertEveryHandlerProvided();
  } catch (error) {
    await nest.close();
    throw error;
  }
  nest.useGlobalFilters(new RemoteErrorFilter(logger));
  nest.useGlobalInterceptors(new MessageInterceptor(definition.name, logger));
  await nest.listen();
  const subscriptions = handlers.subscriptions.map((s) => counted(definition.name, s));
  const consumers = subscriptions.length > 0 ? await transport.consume(logger, subscriptions) : undefined;
  for (const { job, runAtStart } of handlers.jobs) job.start({ runNow: runAtStart });
  collectProcessMetrics();
  const pool = (dataSource.driver as unknown as { master?: PoolStats }).master;
  const unobserve = [
    ...(pool ? [observePool(definition.name, pool)] : []),
    ...(relay ? [observeOutbox(definition.name, () => relay.stats())] : []),
  ];
  const startRelay = () => {
    if (!alone) assertEveryHandlerProvided();
    if (!definition.outbox?.held) relay?.start();
  };
  if (alone) startRelay();

  let probes: Server | undefined;
  if (options.probePort !== undefined) {
    probes = await startProbeServer(options.probePort, {
      database: async () => void (await dataSource.query('SELECT 1')),
      ...transport.readiness,
    });
  }
  logger.info(`${definition.name} is listening`);
  return {
    name: definition.name,
    app: nest,
    subscriptions,
    startRelay,
    stop: async () => {
      for (const stopObserving of unobserve) stopObserving();
      await consumers?.stop();
      await Promise.all(handlers.jobs.map(({ job }) => job.stop()));
      await nest.close(); // no new requests; in-flight handlers finish
      await relay?.stop();
      await transport.close();
      await dataSource.destroy();
      probes?.close();
    },
  };
}

/** The subscription, counting what its handlers do (each event of a batch counts once). */
function counted(service: string, subscription: Subscription): Subscription {
  const count = async <T>(events: number, work: () => Promise<T>): Promise<T> => {
    try {
      const result = await work();
      domainEventsHandled.inc({ service, durable: subscription.durable, outcome: 'ok' }, events);
      return result;
    } catch (error) {
      domainEventsHandled.inc({ service, durable: subscription.durable, outcome: 'failed' }, events);
      throw error;
    }
  };
  const { handleBatch } = subscription;
  return {
    ...subscription,
    handle: (event) => count(1, () => subscription.handle(event)),
    ...(handleBatch && { handleBatch: (events) => count(events.length, () => handleBatch(events)) }),
  };
}

/**
 * One domain service as its package exports it (`apps/<service>/src/service.ts`, made with
 * `domainService`), whatever runs it: its own process (`runServiceMain`, `runMigrateMain`),
 * standalone mode, or the service tier of tests (`ServiceHarness`). Lists of services hold this
 * shape; the configuration type is each service's own business.
 */
export interface AnyDomainService {
  /** Also its NATS queue group and its log name. */
  name: string;
  /** The PostgreSQL schema it owns. */
  schema: string;
  /** Applies the schema's pending migrations, then its changed functions (migrateSchema); returns what it applied. */
  migrate(databaseUrl: string): Promise<string[]>;
  /** Its schema's DataSource factory (`data-source.ts`), not initialised. */
  dataSource(url: string, pool: PoolSettings): DataSource;
  /** Its configuration read from `env` (a ConfigError names what is wrong), then its definition. */
  defineFrom(env: NodeJS.ProcessEnv, logger: Logger): Promise<ServiceDefinition>;
}

export interface DomainService<Config extends ServiceConfig> extends AnyDomainService {
  configSchema: z.ZodType<Config, unknown>;
  define(config: Config, logger: Logger): Promise<ServiceDefinition>;
}

/** What every domain service's module is given by the host (DomainModuleOptions but its settings). */
export type ModuleParts = Omit<DomainModuleOptions<never>, 'settings' | 'clock'>;

/**
 * What a service states; the rest (its definition's name, the migrate command) follows from it.
 * - `module`: its module from the parts every service has and its configuration. The host opens
 *   its database and runs its outbox as DomainServiceConfigSchema's settings say.
 * - `define`: its whole definition, for a service that opens more than its database (payment
 *   rails, signing keys), usually ending with `withOutbox`.
 */
export type DomainServiceParts<Config extends ServiceConfig> = {
  name: string;
  schema: string;
  configSchema: z.ZodType<Config, unknown>;
  /** Its schema's DataSource factory (`data-source.ts`); migrations run on a pool of one. */
  dataSource(url: string, pool: PoolSettings): DataSource;
} & (
  | (Config extends DomainServiceConfig
      ? { module(parts: ModuleParts, config: Config): DynamicModule }
      : never)
  | { define(config: Config, logger: Logger): Promise<Omit<ServiceDefinition, 'name' | 'config'>> }
);

/** A domain service's definition around its open database: its outbox, its timeout and its module. */
export function withOutbox(
  config: DomainServiceConfig,
  schema: string,
  dataSource: DataSource,
  module: (link: ServiceLink) => DynamicModule,
): Omit<ServiceDefinition, 'name' | 'config'> {
  return {
    dataSource,
    outbox: {
      schema,
      pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
      held: config.OUTBOX_RELAY === 'off',
    },
    serviceTimeoutMs: config.SERVICE_TIMEOUT_MS,
    module,
  };
}

/** A domain service from its parts. */
export function domainService<Config extends ServiceConfig>(
  parts: DomainServiceParts<Config>,
): DomainService<Config> {
  const definitionOf = async (
    config: Config,
    logger: Logger,
  ): Promise<Omit<ServiceDefinition, 'name' | 'config'>> => {
    if ('define' in parts) return parts.define(config, logger);
    // `module` is there only when Config extends DomainServiceConfig (DomainServiceParts).
    const withSettings = config as Config & DomainServiceConfig;
    const dataSource = await openDataSource(parts.dataSource, withSettings);
    return withOutbox(withSettings, parts.schema, dataSource, (link) =>
      parts.module({ dataSource, logger, ...link }, withSettings),
    );
  };
  const define = async (config: Config, logger: Logger): Promise<ServiceDefinition> => ({
    name: parts.name,
    config: config as unknown as Readonly<Record<string, unknown>>,
    ...(await definitionOf(config, logger)),
  });
  return {
    name: parts.name,
    schema: parts.schema,
    configSchema: parts.configSchema,
    define,
    defineFrom: (env, logger) => define(loadConfig(parts.configSchema, env), logger),
    migrate: (databaseUrl) => migrateSchema(parts.dataSource(databaseUrl, { size: 1 })),
    dataSource: parts.dataSource,
  };
}

/** What every domain service's configuration has (BaseConfigSchema, DatabaseConfigSchema). */
export interface ServiceConfig {
  LOG_LEVEL: LevelWithSilent;
  NATS_URL?: string | undefined;
  NATS_STREAM_REPLICAS: number;
  DATABASE_URL?: string | undefined;
  PROBE_PORT?: number | undefined;
}

/**
 * A service's `main.ts`: the service alone on NATS (distributed mode), its probes on PROBE_PORT,
 * stopped in order on SIGTERM/SIGINT. `config` is loaded by the caller with NATS_URL and
 * DATABASE_URL required (`loadConfigOrExit(schema.required(...))`), so a missing one exits 78.
 */
export async function runServiceMain<Config extends ServiceConfig>(
  service: DomainService<Config>,
  config: Config & { NATS_URL: string },
): Promise<void> {
  await exitOnConfigError(service.name, async () => {
    const logger = createLogger(service.name, config.LOG_LEVEL);
    const app = busAppOf(service.name);
    const connection = natsConnectionOptions(app, config);
    const definition = await service.define(config, logger);
    await runService(
      definition,
      await openNatsTransport(app, { connection, streamReplicas: config.NATS_STREAM_REPLICAS }, logger),
      { logger, probePort: config.PROBE_PORT },
    );
  });
}

/** A service's `migrate.ts`: the explicit migrate command (`npm run migrate`, the Kubernetes Job). */
export async function runMigrateMain<Config extends ServiceConfig>(
  service: DomainService<Config>,
  config: Config & { DATABASE_URL: string },
): Promise<void> {
  const logger = createLogger(`${service.name}-migrate`, config.LOG_LEVEL);
  const applied = await service.migrate(config.DATABASE_URL);
  logger.info(
    { applied },
    applied.length
      ? `applied ${applied.length} migration(s) and function(s)`
      : `schema ${service.schema} is up to date`,
  );
}

/** Runs one service as its own process: started, then stopped in order on SIGTERM/SIGINT. */
export async function runService(
  definition: ServiceDefinition,
  transport: ServiceTransport,
  options: ServiceRunOptions,
): Promise<void> {
  const service = await startService(definition, transport, options);
  stopGracefullyOnSignal(definition.name, options.logger, service.stop);
}
