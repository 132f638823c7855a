import type { InProcessBroker } from './in-process-broker.js';
import type { InProcessEventLog } from './in-process-event-log.js';
import type { ServiceTransport } from './service-transport.js';

/** A service's transport in standalone mode: the process's broker and event log. */
export function inProcessTransport(broker: InProcessBroker, log: InProcessEventLog): ServiceTransport {
  return {
    microservice: (name) => ({ strategy: broker.strategy(name) }),
    client: (timeoutMs) => broker.client(timeoutMs),
    publisher: log,
    consume: async (logger, subscriptions) => log.subscribe(logger, subscriptions),
    readiness: {},
    close: async () => undefined,
  };
}
