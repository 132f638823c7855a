import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import type { Envelope } from '@townhall/contracts';
import { Observable } from 'rxjs';
import type { Logger } from '../logger.js';
import { REQUEST_ID_HEADER } from '../nats-service-client.js';
import { messageHandlingDuration } from './metrics.js';
import { withRequestId } from './request-context.js';

interface HeaderCarrier {
  getHeaders?: () => { get(name: string): string } | undefined;
}

/**
 * Around every message a service handles: the request id (from the NATS header the caller set,
 * else the envelope's meta) bound to every log line of the handler, one log line when it is
 * done (pattern, outcome, duration), and the handling-latency histogram.
 */
export class MessageInterceptor implements NestInterceptor {
  constructor(
    private readonly service: string,
    private readonly logger: Logger,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const rpc = context.switchToRpc();
    const envelope = rpc.getData<Partial<Envelope<unknown>> | undefined>();
    const carrier = rpc.getContext<HeaderCarrier | undefined>();
    const pattern = patternOf(context);
    const requestId =
      carrier?.getHeaders?.()?.get(REQUEST_ID_HEADER) || envelope?.meta?.requestId || undefined;
    const started = process.hrtime.bigint();
    const done = (outcome: string) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      messageHandlingDuration.observe({ service: this.service, pattern, outcome }, seconds);
      this.logger.info({ pattern, outcome, ms: Math.round(seconds * 10_000) / 10 }, 'message handled');
    };
    return new Observable((subscriber) => {
      const run = () =>
        next.handle().subscribe({
          next: (value) => subscriber.next(value),
          error: (error: unknown) => {
            done(codeOf(error));
            subscriber.error(error);
          },
          complete: () => {
            done('ok');
            subscriber.complete();
          },
        });
      const subscription = requestId ? withRequestId(requestId, run) : run();
      return () => subscription.unsubscribe();
    });
  }
}

function patternOf(context: ExecutionContext): string {
  // NatsContext and the in-process BaseRpcContext both carry the subject (the pattern) first.
  const rpcContext = context.switchToRpc().getContext<{ getArgByIndex?: (index: number) => unknown }>();
  const first = rpcContext?.getArgByIndex?.(0);
  return typeof first === 'string' ? first : `${context.getClass().name}.${context.getHandler().name}`;
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'internal.error';
}
