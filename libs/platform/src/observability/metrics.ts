import { collectDefaultMetrics, Counter, Gauge, Histogram, register, type Registry } from 'prom-client';
import { observeLiveHeap } from './live-heap.js';

/**
 * The process's Prometheus registry: the Node.js defaults (CPU, memory, event loop lag, GC), the
 * live heap after full collections (live-heap.ts) and every Townhall metric, served as
 * `/metrics`. Metrics are declared once, next to the code that owns the concept (these shared
 * ones here; HTTP ones in the gateway; tickets in ticketing), with `counter`, `histogram` and
 * `gauge` below, which put them in this registry. In standalone mode the one process holds them
 * all, told apart by the `service` label.
 */
export const metricsRegistry: Registry = register;

/** A counter in the process's registry: a name (`townhall_..._total`), its help, its labels. */
export function counter<L extends string = never>(
  name: string,
  help: string,
  labelNames: readonly L[] = [],
): Counter<L> {
  return new Counter({ name, help, labelNames, registers: [metricsRegistry] });
}

/** A histogram in the process's registry; in seconds, `LATENCY_BUCKETS` unless it says otherwise. */
export function histogram<L extends string = never>(
  name: string,
  help: string,
  options: { labelNames?: readonly L[]; buckets?: number[] } = {},
): Histogram<L> {
  return new Histogram({
    name,
    help,
    labelNames: options.labelNames ?? [],
    buckets: options.buckets ?? LATENCY_BUCKETS,
    registers: [metricsRegistry],
  });
}

/** A gauge in the process's registry, read on each scrape by its `collect`. */
export function gauge<L extends string = never>(
  name: string,
  help: string,
  options: { labelNames?: readonly L[]; collect: (this: Gauge<L>) => void | Promise<void> },
): Gauge<L> {
  return new Gauge({
    name,
    help,
    labelNames: options.labelNames ?? [],
    collect: options.collect,
    registers: [metricsRegistry],
  });
}

let defaultsStarted = false;
/** Node.js process metrics, once per process. */
export function collectProcessMetrics(): void {
  if (defaultsStarted) return;
  defaultsStarted = true;
  collectDefaultMetrics({ register: metricsRegistry });
  observeLiveHeap(metricsRegistry);
}

/** Seconds: from a cached read (1 ms) to a request near its timeout (5 s). */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** A request to another service (NATS request/reply or in-process), as the caller saw it. */
export const serviceRequestDuration = histogram(
  'townhall_service_request_duration_seconds',
  'Requests to services (NATS request/reply or in-process) by pattern and outcome',
  { labelNames: ['pattern', 'outcome'] },
);

/** A message handled by a service, as the service saw it. */
export const messageHandlingDuration = histogram(
  'townhall_message_handling_duration_seconds',
  'Messages handled by a service, by pattern and outcome (ok or the problem code)',
  { labelNames: ['service', 'pattern', 'outcome'] },
);

export const domainEventsPublished = counter(
  'townhall_domain_events_published_total',
  'Domain events the outbox relay published',
  ['service'],
);

export const domainEventsHandled = counter(
  'townhall_domain_events_handled_total',
  'Domain events handled by a durable consumer, by outcome (ok or failed: redelivered later)',
  ['service', 'durable', 'outcome'],
);

/** Collected on scrape from every registered source (pools, outboxes). */
export const databasePoolConnections = gauge(
  'townhall_db_pool_connections',
  'Connections of a service database pool by state (total, idle, waiting clients)',
  {
    labelNames: ['service', 'state'],
    collect() {
      this.reset();
      for (const [service, pool] of pools) {
        this.set({ service, state: 'total' }, pool.totalCount);
        this.set({ service, state: 'idle' }, pool.idleCount);
        this.set({ service, state: 'waiting' }, pool.waitingCount);
      }
    },
  },
);

export interface PoolStats {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}
const pools = new Map<string, PoolStats>();

/** Reports `pool` as the database pool of `service` until the returned function is called. */
export function observePool(service: string, pool: PoolStats): () => void {
  pools.set(service, pool);
  return () => pools.delete(service);
}

export const outboxPending = gauge(
  'townhall_outbox_pending_events',
  'Domain events committed to a service outbox and not yet published',
  {
    labelNames: ['service'],
    async collect() {
      this.reset();
      for (const [service, stats] of await outboxSnapshot()) this.set({ service }, stats?.pending ?? NaN);
    },
  },
);

export const outboxLag = gauge(
  'townhall_outbox_lag_seconds',
  'Age of the oldest unpublished domain event in a service outbox (0 when empty)',
  {
    labelNames: ['service'],
    async collect() {
      this.reset();
      for (const [service, stats] of await outboxSnapshot()) this.set({ service }, stats?.lagSeconds ?? NaN);
    },
  },
);

export interface OutboxStats {
  pending: number;
  lagSeconds: number;
}
const outboxes = new Map<string, () => Promise<OutboxStats>>();

/** Reports the outbox of `service` (read on each scrape) until the returned function is called. */
export function observeOutbox(service: string, read: () => Promise<OutboxStats>): () => void {
  outboxes.set(service, read);
  snapshot = undefined;
  return () => {
    outboxes.delete(service);
    snapshot = undefined;
  };
}

// Both outbox gauges come from one query per outbox: a scrape reads them once, not once a gauge.
const SNAPSHOT_MS = 1_000;
let snapshot: { at: number; stats: Promise<Array<[string, OutboxStats | undefined]>> } | undefined;
function outboxSnapshot(): Promise<Array<[string, OutboxStats | undefined]>> {
  if (!snapshot || Date.now() - snapshot.at > SNAPSHOT_MS) {
    snapshot = {
      at: Date.now(),
      stats: Promise.all(
        [...outboxes].map(
          async ([service, read]) =>
            [service, await read().catch(() => undefined)] as [string, OutboxStats | undefined],
        ),
      ),
    };
  }
  return snapshot.stats;
}
