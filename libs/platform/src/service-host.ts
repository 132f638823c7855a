import type { DynamicModule, INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Transport, type MicroserviceOptions } from '@nestjs/microservices';
import type { Server } from 'node:http';
import type { DataSource } from 'typeorm';
import { openDomainEventLink, type DomainEventLink } from './outbox/domain-event-link.js';
import { stopGracefullyOnSignal } from './graceful-stop.js';
import { NestPinoLogger, type Logger } from './logger.js';
import { startProbeServer, type ReadinessCheck } from './probes.js';
import { RemoteErrorFilter } from './remote-error.filter.js';

export interface NatsServiceOptions {
  /** The service's name: also its NATS queue group, so replicas share the load. */
  name: string;
  module: DynamicModule;
  natsUrl: string;
  logger: Logger;
  probePort?: number | undefined;
  readiness: Record<string, ReadinessCheck>;
  /** Runs once the microservice listens, e.g. to start domain-event consumers; what it returns is stopped first on shutdown. */
  started?: (app: INestMicroservice) => Promise<{ stop(): Promise<void> }>;
  /** Runs after the microservice stopped taking messages (close the database here). */
  onClose: () => Promise<void>;
}

/**
 * Boots a domain service as a Nest microservice on NATS and stops it in the safe order
 * on SIGTERM/SIGINT: stop taking messages, let in-flight handlers finish, then close
 * the database.
 */
export async function runNatsService(options: NatsServiceOptions): Promise<void> {
  const { logger } = options;
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(options.module, {
    transport: Transport.NATS,
    options: {
      servers: options.natsUrl,
      queue: options.name,
      name: options.name,
      maxReconnectAttempts: -1,
      gracefulShutdown: true,
      gracePeriod: 2_000,
    },
    logger: new NestPinoLogger(logger),
  });
  app.useGlobalFilters(new RemoteErrorFilter(logger));
  await app.listen();

  const background = options.started ? await options.started(app) : undefined;
  let probes: Server | undefined;
  if (options.probePort !== undefined) probes = await startProbeServer(options.probePort, options.readiness);
  logger.info({ queue: options.name }, `${options.name} is listening on NATS`);

  stopGracefullyOnSignal(options.name, logger, async () => {
    await background?.stop();
    await app.close(); // with gracefulShutdown: unsubscribe, then let in-flight handlers finish
    await options.onClose();
    probes?.close();
  });
}

export interface DomainServiceOptions {
  /** Also the NATS queue group and the outbox relay's connection name. */
  name: string;
  natsUrl: string;
  dataSource: DataSource;
  /** The Postgres schema the service owns (its outbox lives there). */
  schema: string;
  logger: Logger;
  probePort?: number | undefined;
  outboxPollIntervalMs: number;
  /** false only to test recovery: domain events then wait in the outbox. */
  relay?: boolean;
  module: (link: DomainEventLink) => DynamicModule;
  started?: (app: INestMicroservice, link: DomainEventLink) => Promise<{ stop(): Promise<void> }>;
}

/**
 * A domain service: an initialised DataSource, its link to the domain-event stream (outbox
 * relay, consumers, requests to other services), readiness on both, and the stop in order
 * (consumers, handlers, relay and connection, database).
 */
export async function runDomainService(options: DomainServiceOptions): Promise<void> {
  const { dataSource, logger } = options;
  const link = await openDomainEventLink({
    name: options.name,
    natsUrl: options.natsUrl,
    dataSource,
    schema: options.schema,
    logger,
    pollIntervalMs: options.outboxPollIntervalMs,
    relay: options.relay ?? true,
  });
  await runNatsService({
    name: options.name,
    module: options.module(link),
    natsUrl: options.natsUrl,
    logger,
    probePort: options.probePort,
    readiness: {
      database: async () => void (await dataSource.query('SELECT 1')),
      nats: async () => void (await link.nats.flush()),
    },
    ...(options.started ? { started: (app: INestMicroservice) => options.started!(app, link) } : {}),
    onClose: async () => {
      await link.close();
      await dataSource.destroy();
    },
  });
}
