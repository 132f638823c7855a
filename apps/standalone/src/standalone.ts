import { createServer, isIP, type AddressInfo, type Server } from 'node:net';
import {
  GatewayConfigSchema,
  inProcessGatewayTransport,
  natsGatewayTransport,
  openNonces,
  startGateway,
} from '@townhall/auth-gateway/embedded';
import {
  InProcessBroker,
  InProcessEventLog,
  inProcessTransport,
  ConfigError,
  loadConfig,
  natsConnectionOptions,
  openNatsTransport,
  startService,
  type Logger,
  type ReadinessCheck,
  type ServiceTransport,
  type StartedService,
} from '@townhall/platform/service';
import { busAppOf } from '@townhall/contracts';
import { WebhookSigner } from '@townhall/webhooks/service';
import { ReceiptSigner } from '@townhall/x402/extensions';
import { DOMAIN_SERVICES } from './domain-services.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.js';

export interface StandaloneOptions {
  env: NodeJS.ProcessEnv;
  /** PGlite's folder; undefined keeps the data in memory. Ignored when DATABASE_URL is set. */
  pgdata: string | undefined;
  logger: Logger;
}

export interface Standalone {
  /** The gateway's URL, as clients sign for it (PUBLIC_BASE_URL's origin in development). */
  url: string;
  /** The address and port the gateway is bound to, e.g. 127.0.0.1:3000 or 0.0.0.0:3000. */
  listening: string;
  /** The address the gateway is bound to (HOST), where the probe port listens too. */
  host: string;
  /** Which part is embedded and which is a server, for the banner. */
  parts: { database: string; messaging: string; nonces: string; payments: string };
  /** What `/readyz` checks (each service's database, NATS and Redis when used), for the probe port. */
  readiness: Record<string, ReadinessCheck>;
  stop(): Promise<void>;
}

/**
 * Standalone mode (docs/architecture.md "Running modes"): the gateway and the domain services in this
 * process, built by the same functions as their own processes, on embedded parts: PGlite for
 * every schema, the in-process transport for requests and domain events, memory for nonces.
 * DATABASE_URL, NATS_URL and REDIS_URL each switch their part to the real server.
 */
export async function startStandalone(options: StandaloneOptions): Promise<Standalone> {
  const { logger } = options;
  const env: NodeJS.ProcessEnv = { ...options.env };
  env['PORT'] ??= '3000';
  // This machine only, unless told otherwise (--host, HOST): a laptop's instance is not a server.
  env['HOST'] ||= '127.0.0.1';
  // Trying it out: the ledger faucet is on unless told otherwise (LEDGER_FAUCET in docs/operations.md
  // "Configuration"), but never in production, where asking for it fails the start (ticketing's config).
  env['LEDGER_FAUCET'] ??= env['TOWNHALL_ENV'] === 'production' ? 'false' : 'true';
  // Webhooks to receivers on this machine or network (docs/product.md "Webhooks"), signed with
  // the data folder's key (main.ts), or with one for this run only (--ephemeral).
  // Only while nothing but this machine can reach the gateway: bound to any other address, an
  // agent from elsewhere could make webhooks scan the host's network (docs/product.md "Webhooks").
  const local = isLoopbackHost(env['HOST']);
  if (!local && env['WEBHOOK_ALLOW_PRIVATE'] === 'true')
    throw new ConfigError(
      `Invalid configuration:\n  WEBHOOK_ALLOW_PRIVATE: must not be true while the gateway listens on ${env['HOST']} (--host, HOST): private webhook addresses are allowed only on a loopback address`,
    );
  env['WEBHOOK_ALLOW_PRIVATE'] ??= local && env['TOWNHALL_ENV'] !== 'production' ? 'true' : 'false';
  // The same for the key directories Signature-Agents name (agents trying it out on this machine
  // publish theirs on it): on another address, anyone could make the gateway scan the host's network.
  if (!local && env['SIGNATURE_AGENT_ALLOW_PRIVATE'] === 'true')
    throw new ConfigError(
      `Invalid configuration:\n  SIGNATURE_AGENT_ALLOW_PRIVATE: must not be true while the gateway listens on ${env['HOST']} (--host, HOST): key directories on private addresses are allowed only on a loopback address`,
    );
  env['SIGNATURE_AGENT_ALLOW_PRIVATE'] ??= local && env['TOWNHALL_ENV'] !== 'production' ? 'true' : 'false';
  env['WEBHOOK_SIGNING_KEY'] ??= WebhookSigner.generate().secret;
  // x402 receipts: the data folder's key (main.ts), or, like the webhook key, one for this run
  // when there is no data folder (--ephemeral, tests): its tickets and receipts go with the run.
  env['RECEIPT_SIGNING_KEY'] ??= ReceiptSigner.generate().seed;
  // One webhooks replica (on PGlite, one session without notices): its own changes are all there are.
  env['WEBHOOK_LISTEN'] ??= 'false';
  // x402 resources and signing audiences must name the gateway's own origin, so "any free port"
  // is chosen now, before anything is built with the origin in it (not by the listen at the end).
  // It stays bound until the gateway listens: a port let go for the seconds of the start was
  // taken meanwhile by another listen(0) or outgoing connection (EADDRINUSE at the end).
  let reserved: Server | undefined;
  if (Number(env['PORT']) === 0 && env['PUBLIC_BASE_URL'] === undefined) {
    reserved = await reservePort(env['HOST']);
    env['PORT'] = String((reserved.address() as AddressInfo).port);
  }
  const release = () => {
    reserved?.close();
    reserved = undefined;
  };
  // Outside development it is the operator's to set (the gateway's configuration refuses to start
  // without it): a deployment that defaults to localhost would share its audience with every other.
  if ((env['TOWNHALL_ENV'] ?? 'development') === 'development')
    env['PUBLIC_BASE_URL'] ??= `http://localhost:${env['PORT']}`;
  const stops: Array<() => Promise<void>> = [() => Promise.resolve(release())];
  const stop = async () => {
    for (const step of stops.reverse()) await step();
  };
  try {
    const gatewayConfig = loadConfig(GatewayConfigSchema, env);
    let database: EmbeddedPostgres | undefined;
    if (env['DATABASE_URL']) {
      for (const service of DOMAIN_SERVICES) await service.migrate(env['DATABASE_URL']);
    } else {
      database = await startEmbeddedPostgres({
        dataDir: options.pgdata,
        services: DOMAIN_SERVICES,
        logger,
      });
      stops.push(() => database!.stop());
      env['DATABASE_URL'] = database.url;
      // PGlite is one session running one statement at a time: more connections per service
      // would only wait in turn (the wire server keeps each connection's statements apart).
      env['DATABASE_POOL_SIZE'] = '1';
    }
    const databaseUrl = env['DATABASE_URL'];

    const natsUrl = env['NATS_URL'];
    const broker = new InProcessBroker();
    const eventLog = new InProcessEventLog();
    // On a real NATS every service connects with the one identity NATS_USER (and the rest) names:
    // a NATS without authorization, or a user allowed what every app may. The apps' users of the
    // shipped authorization are each one app's (npm run start:distributed runs them so).
    const transportFor = async (name: string): Promise<ServiceTransport> => {
      if (!natsUrl) return inProcessTransport(broker, eventLog);
      const app = busAppOf(name);
      return openNatsTransport(
        app,
        {
          connection: natsConnectionOptions(app, { ...gatewayConfig, NATS_URL: natsUrl }),
          streamReplicas: gatewayConfig.NATS_STREAM_REPLICAS,
        },
        logger.child({ app: name }),
      );
    };

    const child = (app: string) => logger.child({ app });
    const services: StartedService[] = [];
    const readiness: Record<string, ReadinessCheck> = {};
    for (const domain of DOMAIN_SERVICES) {
      const definition = await domain.defineFrom(env, child(domain.name));
      readiness[`${definition.name}-database`] = async () =>
        void (await definition.dataSource.query('SELECT 1'));
      const service = await startService(definition, await transportFor(definition.name), {
        logger: child(definition.name),
        relay: false,
      });
      services.push(service);
      stops.push(() => service.stop());
    }
    // Every consumer listens now: domain events left in the outboxes go out to all of them.
    for (const service of services) service.startRelay();

    const gatewayLogger = child('auth-gateway');
    const transport = natsUrl
      ? await natsGatewayTransport(natsUrl, gatewayConfig, gatewayLogger)
      : inProcessGatewayTransport(broker, eventLog, gatewayConfig);
    // In this process's memory unless REDIS_URL is set.
    const nonces = await openNonces(env['REDIS_URL'], gatewayConfig, gatewayLogger).catch(
      async (error: unknown) => {
        await transport.close();
        throw error;
      },
    );
    const gateway = await startGateway({
      config: gatewayConfig,
      transport,
      nonces,
      logger: gatewayLogger,
      readiness,
      beforeListen: release,
    }).catch(async (error: unknown) => {
      await transport.close();
      await nonces.store.close();
      throw error;
    });
    // Stopping the gateway first: no new requests, live streams ended, in-flight ones finish.
    stops.push(() => gateway.stop());
    const port = gateway.port;
    const host = gatewayConfig.HOST;
    return {
      url: `http://localhost:${port}`,
      listening: `${isIP(host) === 6 ? `[${host}]` : host}:${port}`,
      host,
      parts: {
        database: database
          ? options.pgdata
            ? `PGlite in ${options.pgdata}`
            : 'PGlite in memory'
          : databaseUrl,
        messaging: natsUrl ? `NATS at ${natsUrl}` : 'in-process',
        nonces: env['REDIS_URL'] ? `Redis at ${env['REDIS_URL']}` : 'in memory',
        payments: paymentsPart(env),
      },
      readiness: gateway.readiness,
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/** Whether the gateway bound to `host` is reachable from this machine only. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  if (name === '::1' || name === '0:0:0:0:0:0:0:1') return true;
  // An IPv4-mapped loopback address (::ffff:127.0.0.1).
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(name);
  return mapped?.[1] !== undefined && mapped[1].startsWith('127.');
}

/** A free port on `host`, held by a server that accepts nothing until it is closed. */
async function reservePort(host: string | undefined): Promise<Server> {
  const server = createServer();
  server.unref();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: 0, host, backlog: 0 }, () => resolve());
  });
  return server;
}

/** How tickets are paid, for the banner. */
function paymentsPart(env: NodeJS.ProcessEnv): string {
  switch (env['X402_FACILITATOR']) {
    case 'solana-local':
      return `USDC on a local Solana (solana-local), JSON-RPC http://127.0.0.1:${env['SOLANA_LOCAL_RPC_PORT'] ?? '8899'}${
        env['SOLANA_LOCAL_STATE'] ? '' : ' (ephemeral)'
      }; test USDC: npx townhall wallet faucet 1000000`;
    case 'http':
      return `x402 facilitator at ${env['X402_FACILITATOR_URL'] ?? '?'} on ${env['X402_NETWORK'] ?? '?'}`;
    default:
      return `the ledger${env['LEDGER_FAUCET'] === 'true' ? ' (faucet on: npx townhall ledger faucet 10000)' : ''}`;
  }
}
