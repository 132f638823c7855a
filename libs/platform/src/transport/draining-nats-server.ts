import type { NatsConnection } from '@nats-io/transport-node';
import { ServerNats, type NatsOptions } from '@nestjs/microservices';
import { contextOf, inSpan, isTracing, SpanKind } from '../observability/tracing.js';

/** Every client's inbox begins so (`_INBOX.` by default, `_INBOX_<app>.` for the apps' users). */
const CLIENT_INBOX = '_INBOX';

/**
 * Nest's NATS server, stopped as long as it needs to be and no longer. Nest's graceful close
 * unsubscribes (no new request reaches this process; the queue group's other members take them),
 * then waits `gracePeriod` before closing the connection, so that handlers still running can
 * reply. Here that wait is read when the close asks for it: none when nothing is in flight (an idle
 * service stops at once), else `maxGraceMs` for the handlers still running. A message counts as in
 * flight from its delivery until its handler settled and its reply was handed to the connection.
 *
 * Given a `connection`, it serves on that one instead of opening its own (a service's replies, its
 * JetStream publishes and its consumers' acks share one socket). Closing the server then leaves
 * the connection open: its owner drains it after the relay's last publish.
 */
export class DrainingNatsServer extends ServerNats {
  private inFlight = 0;
  private readonly connection: NatsConnection | undefined;

  constructor(
    options: NonNullable<NatsOptions['options']> & { maxGraceMs: number; connection?: NatsConnection },
  ) {
    const { maxGraceMs, connection, ...rest } = options;
    const settings: NonNullable<NatsOptions['options']> = { ...rest, gracefulShutdown: true };
    super(settings);
    this.connection = connection;
    Object.defineProperty(settings, 'gracePeriod', {
      enumerable: true,
      get: () => (this.inFlight === 0 ? 0 : maxGraceMs),
    });
  }

  override async createNatsClient(): ReturnType<ServerNats['createNatsClient']> {
    if (!this.connection) return super.createNatsClient();
    // Nest closes the client it was given when it closes: a borrowed one is handed over with a
    // close of no effect, everything else of it as it is.
    const connection = this.connection;
    return new Proxy(connection, {
      get(target, property, receiver) {
        if (property === 'close') return () => Promise.resolve();
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  private bound: NatsConnection | undefined;

  override bindEvents(client: Parameters<ServerNats['bindEvents']>[0]): void {
    super.bindEvents(client);
    this.bound = client as NatsConnection;
  }

  /**
   * Listening once the NATS server holds the subscriptions: a request sent as soon as `listen`
   * resolves (the readiness probe said ready) reaches this process instead of finding no responder.
   */
  override start(callback: Parameters<ServerNats['start']>[0]): void {
    super.start((error?: unknown, ...rest: unknown[]) => {
      if (error !== undefined || !this.bound) return callback(error, ...rest);
      this.bound.flush().then(
        () => callback(),
        (flushed: unknown) => callback(flushed),
      );
    });
  }

  /** How many messages are being handled now. */
  get handling(): number {
    return this.inFlight;
  }

  override async handleMessage(
    channel: string,
    message: Parameters<ServerNats['handleMessage']>[1],
  ): Promise<unknown> {
    // A request comes from a client, which waits on an inbox of its own. A message on a service's
    // subject that JetStream delivered (a push consumer's deliver subject, a stream's republish)
    // carries no such reply, and Nest would run the handler all the same, trusting the `meta.caller`
    // inside: a service allowed to shape a consumer or the stream could then act as any agent.
    if (!message.reply?.startsWith(CLIENT_INBOX)) {
      this.logger.warn(
        `dropped a message on ${channel} that no client asked (reply ${JSON.stringify(message.reply ?? null)})`,
      );
      return undefined;
    }
    this.inFlight += 1;
    try {
      if (!isTracing()) return (await super.handleMessage(channel, message)) as unknown;
      // The caller's span (its traceparent header) continues here: the handler, its statements.
      return await inSpan(
        `${channel} handle`,
        {
          kind: SpanKind.SERVER,
          parent: contextOf(message.headers),
          attributes: { 'messaging.system': 'nats', 'messaging.destination.name': channel },
        },
        async () => (await super.handleMessage(channel, message)) as unknown,
      );
    } finally {
      // Nest hands the reply to the connection on the next tick after the handler settles.
      await new Promise((resolve) => process.nextTick(resolve));
      this.inFlight -= 1;
    }
  }
}
