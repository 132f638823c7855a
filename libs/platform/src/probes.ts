import { createServer, type Server } from 'node:http';
import { metricsRegistry } from './observability/metrics.js';

export type ReadinessCheck = () => Promise<void>;

/**
 * The tiny HTTP side of an app, the operators' port: `/healthz` says the process is alive (no
 * dependencies, so a database outage never restarts pods), `/readyz` runs every check each time
 * and names each failure (the gateway's public `/readyz` says only ready or not, from a cached run),
 * `/metrics` is Prometheus. It listens on every interface, unless `host` names one.
 */
export async function startProbeServer(
  port: number,
  checks: Record<string, ReadinessCheck>,
  /** What /metrics serves; default this process's registry. */
  metrics: () => Promise<{ contentType: string; body: string }> = async () => ({
    contentType: metricsRegistry.contentType,
    body: await metricsRegistry.metrics(),
  }),
  host = '0.0.0.0',
): Promise<Server> {
  const server = createServer((request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (request.url === '/healthz') return send(200, { status: 'ok' });
    if (request.url === '/metrics') {
      void metrics().then(
        ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(body),
        () => send(500, { status: 'metrics_failed' }),
      );
      return;
    }
    if (request.url === '/readyz') {
      void runChecks(checks).then((result) => send(result.ready ? 200 : 503, result));
      return;
    }
    send(404, { status: 'not_found' });
  });
  // A busy port rejects (the caller exits naming it) instead of crashing on an unhandled 'error'.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

export async function runChecks(
  checks: Record<string, ReadinessCheck>,
): Promise<{ ready: boolean; checks: Record<string, 'ok' | string> }> {
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await withTimeout(check(), 2_000);
        return [name, 'ok'] as const;
      } catch (error) {
        return [name, error instanceof Error ? error.message : String(error)] as const;
      }
    }),
  );
  return { ready: results.every(([, state]) => state === 'ok'), checks: Object.fromEntries(results) };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
