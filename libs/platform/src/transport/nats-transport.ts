import { connect, type ConnectionOptions } from '@nats-io/transport-node';
import { announcedBy, type BusApp } from '@townhall/contracts';
import { consumeSubscriptions } from '../outbox/subscription.js';
import { awaitTownhallStream, ensureTownhallStream, JetStreamPublisher } from '../outbox/publisher.js';
import { NATS_RECONNECT, NatsServiceClient } from '../nats-service-client.js';
import type { Logger } from '../logger.js';
import type { ServiceTransport } from './service-transport.js';
import { DrainingNatsServer } from './draining-nats-server.js';

// How long a stopping service waits for the requests it is still handling to reply.
const SHUTDOWN_GRACE_MS = 2_000;
const PUBLISH_TIMEOUT_MS = 2_000;

/** How a service reaches NATS (natsConnectionOptions: servers, credentials, TLS, inbox) and NATS_STREAM_REPLICAS. */
export interface NatsSettings {
  connection: ConnectionOptions;
  streamReplicas: number;
}

/**
 * A service's transport in distributed mode: one NATS connection, the service's NATS user, for
 * everything: the requests it serves (Nest's NATS transport, in the service's queue group), its
 * requests to other services, JetStream publishing and durable consumers (a second connection cost
 * the service and the NATS server a socket's reads and writes of their own per write). A service
 * that announces domain events keeps the TOWNHALL stream in shape (created, with its replicas); one
 * that announces none may not, and waits for it.
 */
export async function openNatsTransport(
  name: BusApp,
  settings: NatsSettings,
  logger?: Logger,
): Promise<ServiceTransport> {
  const nats = await connect({
    ...settings.connection,
    name,
    ...NATS_RECONNECT,
    waitOnFirstConnect: true,
    noAsyncTraces: true,
  });
  if (announcedBy(name).length > 0) await ensureTownhallStream(nats, settings.streamReplicas);
  else await awaitTownhallStream(nats, logger);
  return {
    microservice: (queue) => ({
      strategy: new DrainingNatsServer({ connection: nats, queue, maxGraceMs: SHUTDOWN_GRACE_MS }),
    }),
    client: (timeoutMs) => new NatsServiceClient(nats, timeoutMs, logger),
    // A PubAck takes milliseconds; one that has not come in 2 s (the stream's leader lost, a new
    // one being elected) is given up, and the relay's next pass publishes again (deduplicated).
    publisher: new JetStreamPublisher(nats, { timeoutMs: PUBLISH_TIMEOUT_MS }),
    consume: (logger, subscriptions) => consumeSubscriptions(nats, logger, subscriptions),
    readiness: {
      nats: async () => {
        if (nats.isClosed()) throw new Error('closed');
        await nats.flush();
      },
    },
    close: () => nats.drain(),
  };
}
