import type { Logger } from './logger.js';
import { stopTracing } from './observability/tracing.js';

/**
 * On SIGTERM or SIGINT, runs `stop` once (the app's own order: stop taking work, finish
 * what is in flight, then close connections), exports the spans still buffered, flushes the logs
 * and exits: 0 if the stop was clean, 1 if it threw.
 */
export function stopGracefullyOnSignal(name: string, logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${name} is stopping`);
    let code = 0;
    try {
      await stop();
      logger.info(`${name} stopped`);
    } catch (error) {
      logger.error({ err: error }, `${name} did not stop cleanly`);
      code = 1;
    }
    await stopTracing();
    logger.flush();
    process.exit(code);
  };
  process.once('SIGTERM', () => void onSignal('SIGTERM'));
  process.once('SIGINT', () => void onSignal('SIGINT'));
}
