import { BaseRpcContext, Server, type CustomTransportStrategy } from '@nestjs/microservices';
import {
  DomainError,
  type Contract,
  type Envelope,
  type MessageMeta,
  type ReplyOf,
  type RequestOf,
} from '@townhall/contracts';
import { lastValueFrom } from 'rxjs';
import type { z } from 'zod';
import { MeasuredServiceClient, type ServiceClient } from '../service-client.js';

/**
 * Standalone mode's message bus for requests: the services of one process register the
 * patterns they handle, and callers reach the handler directly. Requests and replies cross
 * it as JSON, exactly as they cross NATS (dates become strings, nothing is shared by
 * reference), and failures are the same DomainErrors: the handler's own code,
 * `service.unavailable` when nobody handles the pattern, `service.timeout` after the timeout.
 */
export class InProcessBroker {
  private readonly routes = new Map<string, InProcessServer>();

  /** A Nest transport strategy that serves its handlers through this broker. */
  strategy(name: string): InProcessServer {
    return new InProcessServer(this, name);
  }

  client(timeoutMs: number): ServiceClient {
    return new InProcessServiceClient(this, timeoutMs);
  }

  /** @internal */
  register(pattern: string, server: InProcessServer): void {
    const current = this.routes.get(pattern);
    if (current && current !== server) {
      throw new Error(`${pattern} is handled by ${current.name} already; cannot add ${server.name}`);
    }
    this.routes.set(pattern, server);
  }

  /** @internal */
  unregister(server: InProcessServer): void {
    for (const [pattern, owner] of this.routes) if (owner === server) this.routes.delete(pattern);
  }

  /** @internal */
  route(pattern: string): InProcessServer | undefined {
    return this.routes.get(pattern);
  }
}

/** A service's side of the broker: what `app.listen()` starts and `app.close()` drains. */
export class InProcessServer extends Server implements CustomTransportStrategy {
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly broker: InProcessBroker,
    readonly name: string,
  ) {
    super();
  }

  listen(callback: () => void): void {
    for (const pattern of this.messageHandlers.keys()) this.broker.register(pattern, this);
    callback();
  }

  /** Takes no new requests, then waits for those in flight (like NATS' graceful shutdown). */
  async close(): Promise<void> {
    this.broker.unregister(this);
    await Promise.allSettled([...this.inFlight]);
  }

  on(): void {
    // No transport events: there is no connection to lose.
  }

  unwrap<T>(): T {
    throw new Error('The in-process transport has no underlying client');
  }

  /** @internal Runs the handler of `pattern` (with Nest's pipes, interceptors and filters). */
  dispatch(pattern: string, envelope: Envelope<unknown>): Promise<unknown> {
    const handler = this.getHandlerByPattern(pattern);
    if (!handler) {
      return Promise.reject(new DomainError('service.unavailable', `No service is listening for ${pattern}`));
    }
    const run = (async () =>
      lastValueFrom(this.transformToObservable(await handler(envelope, new BaseRpcContext([pattern])))))();
    this.inFlight.add(run);
    void run.then(
      () => this.inFlight.delete(run),
      () => this.inFlight.delete(run),
    );
    return run;
  }
}

class InProcessServiceClient extends MeasuredServiceClient {
  constructor(
    private readonly broker: InProcessBroker,
    private readonly timeoutMs: number,
  ) {
    super();
  }

  protected async request<C extends Contract<z.ZodType, unknown>>(
    contract: C,
    data: RequestOf<C>,
    meta: MessageMeta,
  ): Promise<ReplyOf<C>> {
    const server = this.broker.route(contract.pattern);
    if (!server)
      throw new DomainError('service.unavailable', `No service is listening for ${contract.pattern}`);
    const envelope = asJson({ meta, data }) as Envelope<unknown>;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new DomainError('service.timeout', `The service did not answer ${contract.pattern} in time`),
          ),
        this.timeoutMs,
      );
    });
    try {
      const reply = await Promise.race([server.dispatch(contract.pattern, envelope), timeout]);
      return asJson(reply) as ReplyOf<C>;
    } catch (error) {
      if (error instanceof DomainError) throw error;
      // What the service's RemoteErrorFilter answered: the same shape NATS would carry.
      throw DomainError.fromRemote(error);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    // The broker belongs to whoever created it.
  }
}

/** The value as it would arrive over the wire. */
function asJson(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
