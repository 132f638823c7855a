import { randomUUID } from 'node:crypto';
import { errors, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import {
  DomainError,
  type Contract,
  type MessageMeta,
  type ReplyOf,
  type RequestOf,
} from '@townhall/contracts';
import type { z } from 'zod';
import type { Logger } from './logger.js';
import { MeasuredServiceClient } from './service-client.js';
import { injectTraceHeaders, inSpan, isTracing, SpanKind } from './observability/tracing.js';

/** The reply packet a Nest NATS microservice sends (see @nestjs/microservices ServerNats). */
interface NestReplyPacket {
  id?: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * How every connection to NATS (the gateway's, each service's, Nest's for the requests it serves)
 * comes back after the server went away: forever, trying every half second (plus the client's
 * jitter), so that a restarted NATS serves again within about a second rather than the client's
 * default two.
 */
export const NATS_RECONNECT = { maxReconnectAttempts: -1, reconnectTimeWait: 500 } as const;

/**
 * Request/reply over NATS with the raw v3 client instead of Nest's ClientProxy: `request()`
 * multiplexes replies on one inbox (Nest subscribes a new inbox per request) and reports
 * "no responders" at once, so a stopped service is a 503 now rather than a 504 later.
 * It speaks the packet format of Nest's NATS transport, so services stay plain
 * `@MessagePattern` handlers.
 */
export class NatsServiceClient extends MeasuredServiceClient {
  /** False from the moment the connection to NATS drops until it is back. */
  private connected = true;

  constructor(
    private readonly connection: NatsConnection,
    private readonly timeoutMs: number,
    /** Where a lost and a regained connection are said (one client per connection should say it). */
    logger?: Logger,
  ) {
    super();
    void this.follow(logger);
  }

  /**
   * Follows the connection's status. While NATS is away the client would buffer a request
   * until its timeout; refusing it at once (503 with Retry-After) tells the caller the truth
   * sooner. A request already sent keeps waiting for its reply: it may have been served.
   */
  private async follow(logger: Logger | undefined): Promise<void> {
    for await (const status of this.connection.status()) {
      if (status.type === 'disconnect') {
        this.connected = false;
        logger?.warn('lost the connection to NATS: requests to services are refused (503) until it is back');
      } else if (status.type === 'reconnect') {
        this.connected = true;
        logger?.info('connected to NATS again');
      }
    }
  }

  protected async request<C extends Contract<z.ZodType, unknown>>(
    contract: C,
    data: RequestOf<C>,
    meta: MessageMeta,
  ): Promise<ReplyOf<C>> {
    if (!this.connected || this.connection.isClosed()) {
      throw new DomainError('service.unavailable', `The message bus is not connected (${contract.pattern})`);
    }
    const packet = JSON.stringify({ pattern: contract.pattern, data: { meta, data }, id: randomUUID() });
    const send = async (): Promise<NestReplyPacket> => {
      const headers = natsHeaders();
      headers.set(REQUEST_ID_HEADER, meta.requestId);
      // The request's span, for the service's handler to continue (W3C traceparent).
      injectTraceHeaders((name, value) => headers.set(name, value));
      try {
        const message = await this.connection.request(contract.pattern, packet, {
          timeout: this.timeoutMs,
          headers,
        });
        return message.json<NestReplyPacket>();
      } catch (error) {
        throw toTransportError(error, contract.pattern);
      }
    };
    const reply = isTracing()
      ? await inSpan(
          `${contract.pattern} request`,
          {
            kind: SpanKind.CLIENT,
            attributes: { 'messaging.system': 'nats', 'messaging.destination.name': contract.pattern },
          },
          send,
        )
      : await send();
    if (reply.err !== undefined && reply.err !== null) throw DomainError.fromRemote(reply.err);
    return reply.response as ReplyOf<C>;
  }

  async close(): Promise<void> {
    // The connection belongs to whoever created it.
  }
}

function toTransportError(error: unknown, pattern: string): DomainError {
  if (
    error instanceof errors.NoRespondersError ||
    (error instanceof errors.RequestError && error.isNoResponders())
  ) {
    return new DomainError('service.unavailable', `No service is listening for ${pattern}`);
  }
  if (
    error instanceof errors.TimeoutError ||
    (error instanceof errors.RequestError && error.cause instanceof errors.TimeoutError)
  ) {
    return new DomainError('service.timeout', `The service did not answer ${pattern} in time`);
  }
  if (error instanceof errors.ClosedConnectionError || error instanceof errors.ConnectionError) {
    return new DomainError('service.unavailable', `The message bus is not connected (${pattern})`);
  }
  return new DomainError(
    'service.unavailable',
    `Request ${pattern} failed: ${error instanceof Error ? error.message : String(error)}`,
  );
}
