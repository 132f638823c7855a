import type { LoggerService } from '@nestjs/common';
import { pino, type Logger, type LevelWithSilent } from 'pino';
import { isTracing, traceLogFields } from './observability/tracing.js';

export type { Logger } from 'pino';

/**
 * JSON logs on stdout, one line per event, every line naming the app. Lines are
 * buffered (up to 4 KiB or 100 ms) rather than written one syscall each: on the hot path
 * a write per request line costs more than the request's own work. Buffered lines are
 * flushed on exit; a hard crash loses at most the last 100 ms. While the process traces, each
 * line written within a span names it (`trace_id`, `span_id`).
 */
export function createLogger(app: string, level: LevelWithSilent = 'info'): Logger {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  const flusher = setInterval(() => destination.flush(), 100);
  flusher.unref();
  process.once('exit', () => destination.flushSync());
  return pino(
    {
      level,
      base: { app },
      timestamp: pino.stdTimeFunctions.isoTime,
      ...(isTracing() ? { mixin: traceLogFields } : {}),
    },
    destination,
  );
}

/** Routes Nest's own logging (bootstrap, route mapping, errors) into the same pino logger. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, stackOrContext?: string, context?: string): void {
    this.logger.error(
      { context: context ?? stackOrContext, err: message instanceof Error ? message : undefined },
      String(message),
    );
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
