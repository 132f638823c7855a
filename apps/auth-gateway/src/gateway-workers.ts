import cluster, { type Worker } from 'node:cluster';
import { metricsRegistry, startProbeServer, type Logger } from '@townhall/platform';
import { AggregatorRegistry } from 'prom-client';

/** What a worker tells the primary once its gateway listens. */
export const WORKER_READY = 'townhall.gateway.worker_ready';
/** A worker that exits on its own is forked again after this long (doubling, at most 10 s). */
const REFORK_FIRST_MS = 500;
const REFORK_MAX_MS = 10_000;
/** How long the primary waits for its workers to stop before it kills them. */
const STOP_GRACE_MS = 30_000;

export interface GatewayPrimary {
  stop(): Promise<void>;
}

/**
 * GATEWAY_WORKERS > 1 (distributed mode): this process forks that many workers (node:cluster),
 * each a whole gateway (main.ts) with its own NATS connection and live hub, sharing the public
 * port; the primary itself serves no request. Workers are replicas on one machine: a live stream
 * resumes on any of them (ids are stream sequences), nonces, idempotency keys and rate limits are
 * in Redis, and each keeps its own read caches (a write through one worker is read at once from
 * that worker, from the others once its domain event arrives, as across replicas).
 *
 * The primary owns the operators' port: /readyz is ready while every worker is up and has said
 * so, /metrics is every worker's registry in one (prom-client's AggregatorRegistry: counters and
 * histograms summed across workers). A worker that exits on its own is
 * forked again after a backoff; stop() sends each worker SIGTERM (each drains as a gateway does)
 * and waits for them, SIGKILL after 30 s.
 */
export async function runGatewayPrimary(options: {
  workers: number;
  probePort: number | undefined;
  logger: Logger;
}): Promise<GatewayPrimary> {
  const { workers: count, logger } = options;
  const ready = new Set<number>();
  let stopping = false;
  let delayMs = REFORK_FIRST_MS;

  const fork = (): Worker => {
    const worker = cluster.fork();
    worker.on('message', (message: unknown) => {
      if ((message as { type?: unknown } | null)?.type !== WORKER_READY) return;
      ready.add(worker.id);
      delayMs = REFORK_FIRST_MS;
      logger.info({ worker: worker.id, pid: worker.process.pid }, 'gateway worker is listening');
    });
    worker.on('exit', (code, signal) => {
      ready.delete(worker.id);
      if (stopping) return;
      logger.error(
        { worker: worker.id, pid: worker.process.pid, code, signal, restartInMs: delayMs },
        'gateway worker exited; forking another',
      );
      setTimeout(() => {
        if (!stopping) fork();
      }, delayMs).unref();
      delayMs = Math.min(delayMs * 2, REFORK_MAX_MS);
    });
    return worker;
  };
  for (let index = 0; index < count; index += 1) fork();

  const aggregator = new AggregatorRegistry();
  const probes =
    options.probePort === undefined
      ? undefined
      : await startProbeServer(
          options.probePort,
          {
            workers: () =>
              ready.size === count
                ? Promise.resolve()
                : Promise.reject(new Error(`${ready.size} of ${count} workers ready`)),
          },
          async () => ({ contentType: aggregator.contentType, body: await aggregator.clusterMetrics() }),
        );

  return {
    async stop() {
      stopping = true;
      const running = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => !!worker);
      await Promise.all(
        running.map(
          (worker) =>
            new Promise<void>((resolve) => {
              if (worker.isDead()) return resolve();
              const kill = setTimeout(() => worker.process.kill('SIGKILL'), STOP_GRACE_MS);
              worker.once('exit', () => {
                clearTimeout(kill);
                resolve();
              });
              worker.process.kill('SIGTERM');
            }),
        ),
      );
      probes?.close();
    },
  };
}

/**
 * In a worker, once its gateway listens: answers the primary's requests for this process's
 * metrics (prom-client listens for them once an AggregatorRegistry exists in the process), then
 * tells the primary it is ready. A no-op in a gateway process of its own.
 */
export function reportWorkerReady(): void {
  if (!cluster.isWorker) return;
  AggregatorRegistry.setRegistries([metricsRegistry]);
  new AggregatorRegistry();
  process.send?.({ type: WORKER_READY });
}
