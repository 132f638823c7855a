// What standalone mode needs to run the gateway inside its own process; main.ts is the
// gateway run alone on NATS and Redis.
export {
  inProcessGatewayTransport,
  natsGatewayTransport,
  openNonces,
  startGateway,
  type GatewayTransport,
  type Nonces,
  type RunningGateway,
} from './gateway-host.js';
export { GatewayConfigSchema, type GatewayConfig } from './config.js';
