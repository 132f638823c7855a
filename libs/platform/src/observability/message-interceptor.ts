import type { ArgumentsHost, CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import type { Envelope } from '@townhall/contracts';
import { tap, type Observable } from 'rxjs';
import type { Logger } from '../logger.js';
import { REQUEST_ID_HEADER } from '../nats-service-client.js';
import { messageHandlingDuration } from './metrics.js';

interface HeaderCarrier {
  getHeaders?: () => { get(name: string): string } | undefined;
}

/**
 * Around every message a service handles: one log line when it is done, with the request id the
 * gateway sent (pattern, outcome, duration), and the handling-latency histogram. The request id
 * is passed explicitly rather than through AsyncLocalStorage: on Node 20 that turns on promise
 * hooks for the whole process, which cost a quarter of a service's CPU per request (measured).
 */
export class MessageInterceptor implements NestInterceptor {
  constructor(
    private readonly service: string,
    private readonly logger: Logger,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const pattern = patternOf(context);
    const requestId = requestIdOf(context);
    const started = process.hrtime.bigint();
    const done = (outcome: string) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      messageHandlingDuration.observe({ service: this.service, pattern, outcome }, seconds);
      this.logger.info(
        { requestId, pattern, outcome, ms: Math.round(seconds * 10_000) / 10 },
        'message handled',
      );
    };
    return next
      .handle()
      .pipe(tap({ complete: () => done('ok'), error: (error: unknown) => done(codeOf(error)) }));
  }
}

/** The request id of the message being handled: the NATS header the caller set, else the envelope's. */
export function requestIdOf(host: ArgumentsHost): string | undefined {
  const rpc = host.switchToRpc();
  const carrier = rpc.getContext<HeaderCarrier | undefined>();
  const envelope = rpc.getData<Partial<Envelope<unknown>> | undefined>();
  return carrier?.getHeaders?.()?.get(REQUEST_ID_HEADER) || envelope?.meta?.requestId || undefined;
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
