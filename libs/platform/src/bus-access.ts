import {
  BUS_ACCESS,
  busAppOf,
  grantsCall,
  type BusAccess,
  type Contract,
  type MessageMeta,
  type ReplyOf,
  type RequestOf,
} from '@townhall/contracts';
import type { z } from 'zod';
import { HandlerDeclarationError } from './discovery/handler-declarations.js';
import type { Subscription } from './outbox/subscription.js';
import type { ServiceClient } from './service-client.js';

/** What a service may do on the bus: its own `access` (a test's service), else BUS_ACCESS's entry for its name. */
export function busAccessOf(service: { name: string; access?: BusAccess | undefined }): BusAccess {
  return service.access ?? BUS_ACCESS[busAppOf(service.name)];
}

/**
 * A service's requests to other services, held to what its bus access (BUS_ACCESS, libs/contracts)
 * lets it call. On NATS its user could send nothing else; refused here as well, a call missing from
 * the list fails in every mode (the in-process transport of standalone and of the service tests
 * too), not only on a deployment's NATS.
 */
export class BusAccessClient implements ServiceClient {
  constructor(
    private readonly name: string,
    private readonly access: BusAccess,
    private readonly client: ServiceClient,
  ) {}

  send<C extends Contract<z.ZodType, unknown>>(
    contract: C,
    data: RequestOf<C>,
    meta: MessageMeta,
  ): Promise<ReplyOf<C>> {
    if (!grantsCall(this.access, this.name, contract.pattern)) {
      return Promise.reject(
        new Error(
          `${this.name} may not send ${contract.pattern}: BUS_ACCESS (libs/contracts/src/bus-access.ts) does not grant it`,
        ),
      );
    }
    return this.client.send(contract, data, meta);
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/**
 * Every durable consumer a service declares is one its bus access grants it: on NATS its user may
 * bind no other, so a durable missing there fails the start here, in every mode, naming it.
 */
export function assertDurablesGranted(
  name: string,
  access: BusAccess,
  subscriptions: readonly Subscription[],
): void {
  const granted = new Set(access.durables);
  const missing = subscriptions
    .map((subscription) => subscription.durable)
    .filter((durable) => !granted.has(durable));
  if (missing.length > 0)
    throw new HandlerDeclarationError(
      `${name} declares durable consumers that BUS_ACCESS (libs/contracts/src/bus-access.ts) does not grant it: ${missing.join(', ')}`,
    );
}
