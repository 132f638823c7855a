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
 */
export class DrainingNatsServer extends ServerNats {
  private inFlight = 0;

  constructor(options: NonNullable<NatsOptions['options']> & { maxGraceMs: number }) {
    const { maxGraceMs, ...rest } = options;
    const settings: NonNullable<NatsOptions['options']> = { ...rest, gracefulShutdown: true };
    super(settings);
    Object.defineProperty(settings, 'gracePeriod', {
      enumerable: true,
      get: () => (this.inFlight === 0 ? 0 : maxGraceMs),
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
