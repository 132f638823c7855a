import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { AgentClient } from '@townhall/sdk';
import type { AgentKey } from '@townhall/auth';
import { busAppOf, type BusApp } from '@townhall/contracts';
import { AppProcess, REPO_ROOT } from './app-process.js';
import { PrivateNatsServer } from './nats-server.js';
import { connectAs, natsEnvOf, type TestNats } from './nats-users.js';
import { freePort, waitFor } from './ports.js';
import {
  createMigratedDatabase,
  createTestDatabase,
  withDatabaseRoles,
  type DatabaseRoles,
  type TestDatabase,
} from './postgres.js';

export const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** The domain services and the gateway, as package.json "townhall" names them. */
export const APPS = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    townhall: { services: string[]; gateway: string };
  }
).townhall;

/**
 * Rate limits are off in a topology's gateways unless its `env` sets them (as
 * rate-limits.e2e-spec.ts does): other suites race dozens of writes by one agent, or hundreds of
 * reads from 127.0.0.1, on purpose. Signature-Agent key directories may be on 127.0.0.1 (over
 * http): the tests' agents publish theirs there.
 */
const GATEWAY_DEFAULTS = {
  RATE_LIMIT_WRITES_PER_SECOND: '0',
  RATE_LIMIT_READS_PER_SECOND: '0',
  RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: '0',
  AUTH_FAILURES_PER_ADDRESS: '0',
  SIGNATURE_AGENT_ALLOW_PRIVATE: 'true',
};

export interface TopologyOptions {
  /**
   * Use this NATS (a NatsCluster) instead of a nats-server of the topology's own. Either way every
   * app connects as its own user of k8s/nats-authorization.conf, as in a deployment.
   */
  nats?: TestNats;
  redisUrl?: string;
  /** Environment for every app. */
  env?: Record<string, string>;
  /** Extra environment for one service, by name. */
  serviceEnv?: Record<string, Record<string, string>>;
  /**
   * The database split as in production (k8s/postgres-roles.sql): migrations run as the role
   * that owns the schemas, apps connect as the role that may only read and write rows.
   */
  databaseRoles?: boolean;
  /** The administrator's URL of the PostgreSQL to create the database on (a PrivatePostgresServer's); the machine's by default. */
  postgresAdminUrl?: string;
}

/**
 * The distributed topology as separate processes against the real servers: a fresh
 * database with migrations applied by the explicit command, every service, and the
 * gateway on a free port. `stop()` ends every process it started.
 */
export class Topology {
  private constructor(
    readonly baseUrl: string,
    /** The NATS (JetStream) this topology's apps use, and its users. */
    readonly nats: TestNats,
    /** The topology's own nats-server (undefined with `nats`): tests stop and restart it. */
    readonly natsServer: PrivateNatsServer | undefined,
    /** Its URL is the administrator's; with `databaseRoles`, also the migrator's and the apps'. */
    readonly database: TestDatabase & Partial<DatabaseRoles>,
    readonly gateway: AppProcess,
    readonly services: AppProcess[],
    /** The environment every app got (`common`). */
    private readonly serviceEnv: Record<string, string>,
    private readonly redisUrl: string = REDIS_URL,
  ) {}

  /** Extra environment of each service, by name (TopologyOptions.serviceEnv): a restart keeps it. */
  private ownEnv: Record<string, Record<string, string>> = {};

  /** Gateways started by startGateway(), beside `gateway`. */
  readonly extraGateways: AppProcess[] = [];

  static async start(options: TopologyOptions = {}): Promise<Topology> {
    // Each service migrates its own schema: the commands run at once, as the Jobs do in k8s. With
    // one role for everything, once per build into a template that each topology copies.
    const migrateAll = (env: Record<string, string>) =>
      Promise.all(APPS.services.map((service) => AppProcess.run(service, 'migrate.js', env)));
    const database: TestDatabase & Partial<DatabaseRoles> = options.databaseRoles
      ? await withDatabaseRoles(await createTestDatabase(undefined, options.postgresAdminUrl))
      : await createMigratedDatabase((url) => migrateAll({ DATABASE_URL: url }), options.postgresAdminUrl);
    // By default a nats-server of its own: durable consumers, the TOWNHALL stream and every
    // subject belong to this topology alone, so no test sees another's domain events.
    const ownNats = options.nats ? undefined : await PrivateNatsServer.start();
    const nats: TestNats = options.nats ?? ownNats!;
    const started: AppProcess[] = [];
    try {
      const port = await freePort();
      const baseUrl = `http://127.0.0.1:${port}`;
      const common = {
        DATABASE_URL: database.appUrl ?? database.url,
        PUBLIC_BASE_URL: baseUrl,
        ...options.env,
      };
      if (database.migrateUrl) await migrateAll({ ...common, DATABASE_URL: database.migrateUrl });

      // The gateway boots beside the services: it needs NATS and Redis to be ready, not them.
      const servicesReady = Promise.all(
        APPS.services.map((service) =>
          startService(service, nats, { ...common, ...options.serviceEnv?.[service] }, started),
        ),
      );
      const gateway = AppProcess.start(APPS.gateway, {
        ...GATEWAY_DEFAULTS,
        ...common,
        ...natsEnvOf(nats, 'auth-gateway'),
        PORT: String(port),
        HOST: '127.0.0.1',
        PROBE_PORT: String(await freePort()),
        REDIS_URL: options.redisUrl ?? REDIS_URL,
      });
      started.push(gateway);

      const services = await servicesReady;
      await waitFor('gateway ready', () => ready(`${baseUrl}/readyz`), START_TIMEOUT_MS);
      const redisUrl = options.redisUrl ?? REDIS_URL;
      const topology = new Topology(baseUrl, nats, ownNats, database, gateway, services, common, redisUrl);
      topology.ownEnv = options.serviceEnv ?? {};
      return topology;
    } catch (error) {
      await Promise.all(started.map((app) => app.stop()));
      await database.drop();
      await ownNats?.destroy();
      const logs = started.map((app) => `--- ${app.name}\n${app.logs.slice(-30).join('\n')}`).join('\n');
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${logs}`, { cause: error });
    }
  }

  /** Its NATS: one server's URL, or a cluster's servers comma-separated. */
  get natsUrl(): string {
    return this.nats.url;
  }

  /** A connection to this topology's NATS as `app`: its user, its inbox (what that app, or a compromised one, can do). */
  connectNats(app: BusApp): Promise<NatsConnection> {
    return connectAs(this.nats, app);
  }

  /** The process of one service, by name. */
  service(name: string): AppProcess {
    const app = this.services.find((service) => service.name === name);
    if (!app) throw new Error(`no service ${name} in this topology`);
    return app;
  }

  /**
   * Stops a service (SIGTERM, or SIGKILL with `kill`: no chance to finish anything) and starts it
   * again with extra environment; resolves when it is ready.
   */
  async restartService(
    name: string,
    env: Record<string, string> = {},
    { kill = false }: { kill?: boolean } = {},
  ): Promise<AppProcess> {
    const index = this.services.findIndex((service) => service.name === name);
    if (index < 0) throw new Error(`no service ${name} in this topology`);
    if (kill) await this.services[index]!.kill();
    else await this.services[index]!.stop();
    const restarted = await startService(
      name,
      this.nats,
      { ...this.serviceEnv, ...this.ownEnv[name], ...env },
      [],
    );
    this.services[index] = restarted;
    return restarted;
  }

  /**
   * Starts one more gateway process, a replica of the first: the same environment (the same
   * PUBLIC_BASE_URL, so requests signed for `baseUrl` verify there too, and the same Redis and
   * NATS) plus `env`, on ports of its own. Resolves with its URL (and its probe port's: /metrics)
   * once it is ready; stop() ends it.
   */
  async startGateway(
    env: Record<string, string> = {},
  ): Promise<{ url: string; probeUrl: string; process: AppProcess }> {
    const port = await freePort();
    const probe = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const gateway = AppProcess.start(APPS.gateway, {
      ...GATEWAY_DEFAULTS,
      ...this.serviceEnv,
      ...natsEnvOf(this.nats, 'auth-gateway'),
      HOST: '127.0.0.1',
      REDIS_URL: this.redisUrl,
      ...env,
      PORT: String(port),
      PROBE_PORT: String(probe),
    });
    this.extraGateways.push(gateway);
    try {
      await waitFor(`gateway on port ${port} ready`, () => ready(`${url}/readyz`), START_TIMEOUT_MS);
    } catch (error) {
      const logs = gateway.logs.slice(-30).join('\n');
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${logs}`, { cause: error });
    }
    return { url, probeUrl: `http://127.0.0.1:${probe}`, process: gateway };
  }

  /**
   * A second replica set: one more process of every service and one more gateway, with the same
   * environment (database, NATS, Redis, PUBLIC_BASE_URL), as a second launcher of
   * `npm run start:distributed` or a second pod of each Deployment would be. Resolves once all are
   * ready; stop() ends them with the rest.
   */
  async startReplicaSet(): Promise<{ url: string; processes: AppProcess[] }> {
    const services = await Promise.all(
      APPS.services.map((service) =>
        startService(service, this.nats, { ...this.serviceEnv, ...this.ownEnv[service] }, this.replicas),
      ),
    );
    const gateway = await this.startGateway();
    return { url: gateway.url, processes: [...services, gateway.process] };
  }

  /** Services started by startReplicaSet(). */
  private readonly replicas: AppProcess[] = [];

  client(key?: AgentKey): AgentClient {
    return new AgentClient({ baseUrl: this.baseUrl, ...(key ? { key } : {}) });
  }

  async stop(): Promise<void> {
    await Promise.all([
      this.gateway.stop(),
      ...this.extraGateways.map((gateway) => gateway.stop()),
      ...this.services.map((service) => service.stop()),
      ...this.replicas.map((service) => service.stop()),
    ]);
    await this.database.drop();
    await this.natsServer?.destroy();
  }
}

/**
 * How long an app of the topology has to say it is ready. A ceiling, not a claim: an app is ready
 * in one to two seconds, but six apps starting at once on a loaded two-core machine have taken
 * over 20 s.
 */
const START_TIMEOUT_MS = 120_000;

/** Starts one service, as its NATS user, with a probe port of its own and waits until it says it is ready. */
async function startService(
  name: string,
  nats: TestNats,
  env: Record<string, string>,
  started: AppProcess[],
): Promise<AppProcess> {
  const probe = await freePort();
  const app = AppProcess.start(name, {
    ...natsEnvOf(nats, busAppOf(name)),
    ...env,
    PROBE_PORT: String(probe),
  });
  started.push(app);
  await waitFor(`${name} ready`, () => ready(`http://127.0.0.1:${probe}/readyz`), START_TIMEOUT_MS);
  return app;
}

async function ready(url: string): Promise<true | undefined> {
  const response = await fetch(url);
  return response.status === 200 ? true : undefined;
}
