import type { Contract, MessageMeta, ReplyOf, RequestOf } from '@townhall/contracts';
import type { z } from 'zod';

/**
 * How the gateway (and one service asking another) sends a request to the service that
 * owns a contract. NATS in distributed mode, a direct call in standalone mode; callers
 * cannot tell. Failures surface as DomainError: the remote code, or
 * `service.unavailable` (nobody listens) and `service.timeout` (nobody answered).
 */
export interface ServiceClient {
  send<C extends Contract<z.ZodType, unknown>>(
    contract: C,
    data: RequestOf<C>,
    meta: MessageMeta,
  ): Promise<ReplyOf<C>>;
  close(): Promise<void>;
}

export const SERVICE_CLIENT = Symbol('ServiceClient');
