import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { DataSource } from 'typeorm';
import type { Logger } from '../logger.js';
import { ensureTownhallStream, JetStreamPublisher } from './publisher.js';
import { OutboxRelay } from './relay.js';

export interface DomainEventLinkOptions {
  name: string;
  natsUrl: string;
  dataSource: DataSource;
  schema: string;
  logger: Logger;
  pollIntervalMs: number;
  /** false only to test recovery: domain events then wait in the outbox. */
  relay?: boolean;
}

/**
 * A service's link to the domain-event stream: its own NATS connection (for JetStream, for
 * consumers and for requests to other services), the TOWNHALL stream ensured, and the outbox
 * relay publishing what the service commits.
 */
export interface DomainEventLink {
  nats: NatsConnection;
  relay: OutboxRelay;
  close(): Promise<void>;
}

export async function openDomainEventLink(options: DomainEventLinkOptions): Promise<DomainEventLink> {
  const nats = await connect({
    servers: options.natsUrl,
    name: `${options.name}-events`,
    maxReconnectAttempts: -1,
    waitOnFirstConnect: true,
    noAsyncTraces: true,
  });
  await ensureTownhallStream(nats);
  const relay = new OutboxRelay({
    dataSource: options.dataSource,
    schema: options.schema,
    publisher: new JetStreamPublisher(nats),
    logger: options.logger,
    pollIntervalMs: options.pollIntervalMs,
  });
  if (options.relay !== false) relay.start();
  return {
    nats,
    relay,
    close: async () => {
      await relay.stop();
      await nats.drain();
    },
  };
}
