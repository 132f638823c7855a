import type { CustomTransportStrategy, MicroserviceOptions } from '@nestjs/microservices';
import type { DomainEventPublisher } from '../outbox/publisher.js';
import type { Subscription } from '../outbox/subscription.js';
import type { Logger } from '../logger.js';
import type { ReadinessCheck } from '../probes.js';
import type { ServiceClient } from '../service-client.js';

/**
 * Everything a service exchanges with the rest of the system, behind one seam: the
 * requests it serves, the requests it sends, the domain events it publishes and those it
 * consumes. NATS and JetStream in distributed mode (openNatsTransport); one process's
 * InProcessBroker and InProcessEventLog in standalone mode. The code above cannot tell.
 */
export interface ServiceTransport {
  /** What the service's Nest microservice listens with (its name is its queue group). */
  microservice(name: string): MicroserviceOptions | { strategy: CustomTransportStrategy };
  /** Requests to other services, answered within `timeoutMs` or `service.timeout`. */
  client(timeoutMs: number): ServiceClient;
  /** Where the outbox relay publishes. */
  publisher: DomainEventPublisher;
  /** Durable consumers: a consumer that was away catches up (as far as the transport keeps events). */
  consume(logger: Logger, subscriptions: Subscription[]): Promise<{ stop(): Promise<void> }>;
  readiness: Record<string, ReadinessCheck>;
  close(): Promise<void>;
}
