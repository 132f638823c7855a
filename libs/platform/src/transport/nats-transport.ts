import { connect } from '@nats-io/transport-node';
import { consumeSubscriptions } from '../outbox/consumer.js';
import { ensureTownhallStream, JetStreamPublisher } from '../outbox/publisher.js';
import { NATS_RECONNECT, NatsServiceClient } from '../nats-service-client.js';
import { natsServers } from '../config.js';
import type { Logger } from '../logger.js';
import type { ServiceTransport } from './service-transport.js';
import { DrainingNatsServer } from './draining-nats-server.js';

// How long a stopping service waits for the requests it is still handling to reply.
const SHUTDOWN_GRACE_MS = 2_000;
const PUBLISH_TIMEOUT_MS = 2_000;

/** Where a service finds NATS: NATS_URL (one server or a cluster's) and NATS_STREAM_REPLICAS. */
export interface NatsSettings {
  url: string;
  streamReplicas: number;
}

/**
 * A service's transport in distributed mode: a NATS connection of its own for requests to
 * other services, JetStream publishing and durable consumers (the TOWNHALL stream ensured with
 * its replicas), and Nest's NATS transport, in the service's queue group, for the requests it
 * serves. Both connections know every server of the list and fail over among them.
 */
export async function openNatsTransport(
  name: string,
  settings: NatsSettings,
  logger?: Logger,
): Promise<ServiceTransport> {
  const servers = natsServers(settings.url);
  const nats = await connect({
    servers,
    name: `${name}-events`,
    ...NATS_RECONNECT,
    waitOnFirstConnect: true,
    noAsyncTraces: true,
  });
  await ensureTownhallStream(nats, settings.streamReplicas);
  return {
    microservice: (queue) => ({
      strategy: new DrainingNatsServer({
        servers,
        queue,
        name: queue,
        ...NATS_RECONNECT,
        maxGraceMs: SHUTDOWN_GRACE_MS,
      }),
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
