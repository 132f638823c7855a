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
import { MeasuredServiceClient } from './service-client.js';

/** The reply packet a Nest NATS microservice sends (see @nestjs/microservices ServerNats). */
interface NestReplyPacket {
  id?: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * Request/reply over NATS with the raw v3 client instead of Nest's ClientProxy: `request()`
 * multiplexes replies on one inbox (Nest subscribes a new inbox per request) and reports
 * "no responders" at once, so a stopped service is a 503 now rather than a 504 later.
 * It speaks the packet format of Nest's NATS transport, so services stay plain
 * `@MessagePattern` handlers.
 */
export class NatsServiceClient extends MeasuredServiceClient {
  constructor(
    private readonly connection: NatsConnection,
    private readonly timeoutMs: number,
  ) {
    super();
  }

  protected async request<C extends Contract<z.ZodType, unknown>>(
    contract: C,
    data: RequestOf<C>,
    meta: MessageMeta,
  ): Promise<ReplyOf<C>> {
    const packet = JSON.stringify({ pattern: contract.pattern, data: { meta, data }, id: randomUUID() });
    const headers = natsHeaders();
    headers.set(REQUEST_ID_HEADER, meta.requestId);
    let reply: NestReplyPacket;
    try {
      const message = await this.connection.request(contract.pattern, packet, {
        timeout: this.timeoutMs,
        headers,
      });
      reply = message.json<NestReplyPacket>();
    } catch (error) {
      throw toTransportError(error, contract.pattern);
    }
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
