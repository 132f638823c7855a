import './tracing.js';
import 'reflect-metadata';
import cluster from 'node:cluster';
import {
  collectProcessMetrics,
  createLogger,
  exitOnConfigError,
  loadConfigOrExit,
  startProbeServer,
  stopGracefullyOnSignal,
} from '@townhall/platform';
import { audienceOf, GatewayConfigSchema } from './config.js';
import { natsGatewayTransport, openNonces, startGateway } from './gateway-host.js';
import { reportWorkerReady, runGatewayPrimary } from './gateway-workers.js';

// Distributed mode: NATS and Redis are required.
const config = loadConfigOrExit(
  GatewayConfigSchema.required({ NATS_URL: true, REDIS_URL: true }),
  'auth-gateway',
);
const logger = createLogger('auth-gateway', config.LOG_LEVEL);
collectProcessMetrics();

if (config.GATEWAY_WORKERS > 1 && cluster.isPrimary) {
  // The primary forks the workers (this file again) and keeps the operators' port.
  const primary = await runGatewayPrimary({
    workers: config.GATEWAY_WORKERS,
    probePort: config.PROBE_PORT,
    logger,
  });
  logger.info({ workers: config.GATEWAY_WORKERS }, 'auth-gateway primary started its workers');
  stopGracefullyOnSignal('auth-gateway', logger, () => primary.stop());
} else {
  const workerLogger = cluster.isWorker ? logger.child({ worker: cluster.worker?.id }) : logger;
  // Redis first: one whose eviction policy could drop nonces is a bad configuration (exit 78, naming it).
  const nonces = await exitOnConfigError('auth-gateway', () =>
    openNonces(config.REDIS_URL, config, workerLogger),
  );
  const gateway = await startGateway({
    config,
    // A TLS or creds file that cannot be read is a bad configuration: exit 78, naming it.
    transport: await exitOnConfigError('auth-gateway', () =>
      natsGatewayTransport(config.NATS_URL, config, workerLogger),
    ),
    nonces,
    logger: workerLogger,
  });
  // Prometheus and the probes on the operators' port as well (the public port has /healthz,
  // /readyz); a worker's are the primary's to serve.
  const probes =
    config.PROBE_PORT === undefined || cluster.isWorker
      ? undefined
      : await startProbeServer(config.PROBE_PORT, gateway.readiness);
  workerLogger.info(
    { url: `http://127.0.0.1:${gateway.port}`, audience: audienceOf(config) },
    'auth-gateway is listening',
  );
  reportWorkerReady();

  stopGracefullyOnSignal('auth-gateway', workerLogger, async () => {
    await gateway.stop();
    probes?.close();
  });
}
