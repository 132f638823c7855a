import 'reflect-metadata';
import {
  collectProcessMetrics,
  createLogger,
  loadConfigOrExit,
  startProbeServer,
  stopGracefullyOnSignal,
} from '@townhall/platform';
import { audienceOf, GatewayConfigSchema } from './config.js';
import { natsGatewayTransport, openNonces, startGateway } from './gateway-host.js';

// Distributed mode: NATS and Redis are required.
const config = loadConfigOrExit(
  GatewayConfigSchema.required({ NATS_URL: true, REDIS_URL: true }),
  'auth-gateway',
);
const logger = createLogger('auth-gateway', config.LOG_LEVEL);

const gateway = await startGateway({
  config,
  transport: await natsGatewayTransport(config.NATS_URL, config, logger),
  nonces: openNonces(config.REDIS_URL, config, logger),
  logger,
});
collectProcessMetrics();
// Prometheus and the probes on the operators' port as well (the public port has /healthz, /readyz).
const probes =
  config.PROBE_PORT === undefined ? undefined : await startProbeServer(config.PROBE_PORT, gateway.readiness);
logger.info(
  { url: `http://127.0.0.1:${gateway.port}`, audience: audienceOf(config) },
  'auth-gateway is listening',
);

stopGracefullyOnSignal('auth-gateway', logger, async () => {
  await gateway.stop();
  probes?.close();
});
