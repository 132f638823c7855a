import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { createServer, type Server } from 'node:net';
import pg from 'pg';
import { AgentClient } from '@townhall/sdk';
import {
  APPS,
  childrenOf,
  compileCacheEnv,
  createTestDatabase,
  freePort,
  isAlive,
  problemOf,
  REDIS_URL,
  REPO_ROOT,
  type TestDatabase,
  waitFor,
} from '@townhall/testing';

/**
 * A process of the repository's own tooling, with only `env` (and PATH, and Node's compile cache);
 * output kept as it comes.
 */
class Command {
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(
    readonly child: ChildProcess,
    private readonly timeoutMs = 30_000,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), this.timeoutMs);
    // 'close', not 'exit': the last output may still be in the pipes when the process exits.
    this.exited = new Promise((resolve) =>
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve(code);
      }),
    );
  }

  static start(args: string[], env: Record<string, string>, timeoutMs?: number): Command {
    const child = spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...compileCacheEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new Command(child, timeoutMs);
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves with the first match of `pattern` in stdout (or stderr); rejects if the process ends first. */
  waitForOutput(
    pattern: RegExp,
    timeoutMs = 30_000,
    stream: 'stdout' | 'stderr' = 'stdout',
  ): Promise<RegExpExecArray> {
    return waitFor(
      `${pattern} in the output`,
      async () => {
        const match = pattern.exec(this[stream]);
        if (match) return match;
        if (!this.running) throw new Error(`exited first:\n${this.stdout}\n${this.stderr}`);
        return undefined;
      },
      timeoutMs,
    );
  }

  /** SIGTERM by pid, SIGKILL after graceMs; resolves with the exit code. */
  async stop(graceMs = 20_000): Promise<number | null> {
    if (this.running) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

async function run(args: string[], env: Record<string, string>) {
  const command = Command.start(args, env);
  const code = await command.exited;
  return { code, stdout: command.stdout, stderr: command.stderr };
}

async function get(url: string): Promise<{ status: number; type: string | null; body: string }> {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
}

/** Holds a port on 127.0.0.1 until closed. */
async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { port: address.port, server };
}

/** The first of `count` consecutive ports that are all free right now. */
async function freePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    const servers: Server[] = [];
    try {
      for (let port = base; port < base + count; port++) {
        const server = createServer();
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, '127.0.0.1', resolve);
        });
        servers.push(server);
      }
      return base;
    } catch {
      // taken: try another range
    } finally {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  }
  throw new Error(`no ${count} consecutive free ports`);
}

/** What /proc says a process was started with (its argv, space-separated); empty once it is gone. */
function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

describe('npm run migrate (tools/migrate.mjs): the explicit migration command', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    // Gone again, so that the command has to create it.
    await database.drop();
  });
  afterAll(() => database.drop());

  it('creates the database, applies every schema, then finds nothing to apply', async () => {
    const first = await run(['tools/migrate.mjs'], { DATABASE_URL: database.url });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`Database ${database.name} at`);
    expect(first.stdout).toContain(': created');
    for (const service of APPS.services) {
      expect(first.stdout).toMatch(new RegExp(`schema ${service} +applied \\d+: \\w+`));
    }
    expect(first.stdout).toMatch(/Applied \d+ migration\(s\)\./);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ schema: string; tables: string[] }>(
        `SELECT table_schema AS schema, array_agg(table_name::text) AS tables
           FROM information_schema.tables WHERE table_schema = ANY($1) GROUP BY table_schema`,
        [APPS.services],
      );
      expect(rows.map((row) => row.schema).sort()).toEqual([...APPS.services].sort());
      for (const row of rows) {
        expect(row.tables).toContain('migrations');
        expect(row.tables.length).toBeGreaterThan(1);
      }
    } finally {
      await client.end();
    }

    const second = await run(['tools/migrate.mjs'], { DATABASE_URL: database.url });
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain('created');
    for (const service of APPS.services)
      expect(second.stdout).toMatch(new RegExp(`schema ${service} +up to date`));
    expect(second.stdout).toContain('Nothing to apply: every schema is up to date.');
  });

  it('says which server it cannot reach, in one line, and exits 1', async () => {
    const { code, stdout, stderr } = await run(['tools/migrate.mjs'], {
      DATABASE_URL: 'postgres://townhall:secret@127.0.0.1:1/townhall',
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^migrate: cannot reach PostgreSQL at postgres:\/\/townhall:\*\*\*@127\.0\.0\.1:1\/townhall: .*ECONNREFUSED/,
    );
    expect(stderr.trim().split('\n')).toHaveLength(1); // a message, not a stack trace
    expect(stderr + stdout).not.toContain('secret');
  });
});

describe('standalone --probe-port: Prometheus and probes for operators', () => {
  it('serves /metrics, /healthz and /readyz on the probe port and names it in the banner', async () => {
    const probePort = await freePort();
    const standalone = Command.start(
      ['apps/standalone/dist/main.js', '--ephemeral', '--port', '0', '--probe-port', String(probePort)],
      {},
      40_000,
    );
    try {
      const [, api] = await standalone.waitForOutput(/API\s+(http:\/\/localhost:\d+)/);
      expect(standalone.stdout).toMatch(new RegExp(`Probes\\s+http://localhost:${probePort}\\s`));
      const probe = `http://127.0.0.1:${probePort}`;
      expect((await get(`${api!.replace('localhost', '127.0.0.1')}/events`)).status).toBe(200);

      expect(await get(`${probe}/healthz`)).toMatchObject({ status: 200 });
      const ready = await get(`${probe}/readyz`);
      expect(ready.status).toBe(200);
      expect(JSON.parse(ready.body)).toMatchObject({
        ready: true,
        checks: Object.fromEntries(APPS.services.map((service) => [`${service}-database`, 'ok'])),
      });
      const metrics = await get(`${probe}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.type).toMatch(/^text\/plain/);
      expect(metrics.body).toMatch(/^process_cpu_seconds_total /m);
      expect(metrics.body).toMatch(/^townhall_http_request_duration_seconds_count\{.*\} [1-9]/m);
      expect(metrics.body).toMatch(/^townhall_db_pool_connections\{service="events",state="total"\} /m);
    } finally {
      expect(await standalone.stop()).toBe(0);
    }
    expect(standalone.stdout).toContain('Townhall stopped.');
  });

  it('refuses a malformed PROBE_PORT and a probe port in use, before it starts', async () => {
    const malformed = await run(['apps/standalone/dist/main.js', '--ephemeral'], { PROBE_PORT: 'nine' });
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain("PROBE_PORT must be a port number from 0 to 65535, not 'nine'");

    const taken = await holdPort();
    try {
      const busy = await run(
        ['apps/standalone/dist/main.js', '--ephemeral', '--probe-port', String(taken.port)],
        {},
      );
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(`The probe port ${taken.port} is in use`);
    } finally {
      taken.server.close();
    }
  });
});

/** How long a launcher may take to stop its apps (its own grace is 15 s each, then SIGKILL). */
const STOP_GRACE_MS = 40_000;

describe('npm run start:distributed (tools/start.mjs): a probe port per app, and a dead app restarted', () => {
  let database: TestDatabase;
  /** The launchers' data folder: their NATS keeps its store and the apps' passwords there. */
  let dataDir: string;
  let launcher: Command | undefined;
  let replica: Command | undefined;
  let children: number[] = [];
  /** The second launcher's apps: ended by pid after the test whatever happened to it. */
  let replicaChildren: number[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'townhall-distributed-'));
  });
  afterAll(async () => {
    if (launcher?.running) await launcher.stop(5_000);
    if (replica?.running) await replica.stop(5_000);
    for (const pid of [...children, ...replicaChildren].filter(isAlive)) process.kill(pid, 'SIGKILL');
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('prints each probe URL, serves metrics on each, gives every app the gateway origin, restarts an app killed with -9 while the others serve, and stops every app on SIGTERM', async () => {
    const apps = [...APPS.services, APPS.gateway];
    const port = await freePort();
    const probeBase = await freePortRange(apps.length);
    const natsPort = await freePort();
    // Without NATS_URL: the first launcher starts a nats-server of its own, with the apps'
    // authorization; the second, on the same data folder, joins it.
    const launch = (gatewayPort: number, probes: number) =>
      Command.start(
        ['tools/start.mjs', '--distributed'],
        {
          DATABASE_URL: database.url,
          TOWNHALL_DATA_DIR: dataDir,
          LOCAL_NATS_PORT: String(natsPort),
          REDIS_URL,
          PORT: String(gatewayPort),
          HOST: '127.0.0.1',
          PROBE_PORT_BASE: String(probes),
          // Both replicas name the first's origin: a request signed for it verifies at either.
          PUBLIC_BASE_URL: `http://localhost:${port}`,
        },
        40_000,
      );
    // Two launchers at once against the same servers, as two replicas of every app: both migrate
    // the new database at the same moment (one at a time per schema, under the migrations' lock).
    const replicaPort = await freePort();
    launcher = launch(port, probeBase);
    await launcher.waitForOutput(/NATS: a nats-server of its own at nats:\/\/127\.0\.0\.1:\d+/);
    replica = launch(replicaPort, await freePortRange(apps.length));
    await launcher.waitForOutput(/Townhall starting: gateway on http:\/\/localhost:\d+/);
    const [table] = await launcher.waitForOutput(
      /Probes of each app:.*\n(?: {2}\S+ +http:\/\/localhost:\d+\n)+/,
    );
    const rows = [...table.matchAll(/^ {2}(\S+) +http:\/\/localhost:(\d+)$/gm)].map(([, name, probe]) => [
      name,
      Number(probe),
    ]);
    expect(rows).toEqual(apps.map((name, index) => [name, probeBase + index]));
    const [natsServer, ...appPids] = childrenOf(launcher.child.pid!).sort(
      (a, b) =>
        Number(commandLineOf(b).includes('nats-server')) - Number(commandLineOf(a).includes('nats-server')),
    );
    expect(commandLineOf(natsServer!)).toContain('nats-server');
    children = appPids;
    expect(children).toHaveLength(apps.length);
    // Each app is its own NATS user, and holds its own password only; a client without one is refused.
    for (const pid of children) {
      const environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      const app = apps.find((name) => commandLineOf(pid).includes(`apps/${name}/dist/main.js`))!;
      expect(environment).toContain(`NATS_USER=${app}`);
      expect(environment.filter((entry) => entry.startsWith('TOWNHALL_NATS_PASSWORD_'))).toEqual([]);
    }
    expect(statSync(join(dataDir, 'nats', 'passwords.json')).mode & 0o077).toBe(0);
    await expect(connect({ servers: `nats://127.0.0.1:${natsPort}`, reconnect: false })).rejects.toThrow(
      /Authorization Violation/i,
    );

    await waitFor('the gateway', async () =>
      (await get(`http://127.0.0.1:${port}/healthz`)).status === 200 ? true : undefined,
    );
    for (const [name, probe] of rows) {
      await waitFor(`${name as string} ready`, async () =>
        (await get(`http://127.0.0.1:${probe}/readyz`)).status === 200 ? true : undefined,
      );
      const metrics = await get(`http://127.0.0.1:${probe}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.body).toMatch(/^townhall_\w+/m);
    }

    // Every app names the same public origin, the gateway's PORT (not 3000): the x402 resource
    // ticketing asks a buyer to sign is under it.
    const origin = `http://localhost:${port}`;
    const client = () => new AgentClient({ baseUrl: `http://127.0.0.1:${port}`, audience: origin });
    const startsAt = new Date(Date.now() + 86_400_000);
    const event = await client().events.create({
      title: 'Origins',
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + 3_600_000).toISOString(),
      timezone: 'UTC',
      capacity: 5,
      ticketing: { mode: 'single', price: '100', asset: 'USDC' },
    });
    const payment = await problemOf(client().tickets.rsvp(event.id));
    expect(payment.status).toBe(402);
    const [offer] = payment.problem['accepts'] as { resource: string }[];
    expect(offer!.resource.startsWith(`${origin}/`)).toBe(true);
    // The second launcher's apps are replicas of the first's: its gateway serves what the first wrote.
    await replica.waitForOutput(/Townhall starting: gateway on http:\/\/localhost:\d+/);
    expect(replica.stdout).toContain(
      `NATS: joining the one another launcher started at nats://127.0.0.1:${natsPort}`,
    );
    replicaChildren = childrenOf(replica.child.pid!);
    await waitFor('the second gateway', async () =>
      (await get(`http://127.0.0.1:${replicaPort}/readyz`)).status === 200 ? true : undefined,
    );
    expect((await get(`http://127.0.0.1:${replicaPort}/events/${event.id}`)).status).toBe(200);
    const viaReplica = new AgentClient({ baseUrl: `http://127.0.0.1:${replicaPort}`, audience: origin });
    expect((await problemOf(viaReplica.tickets.rsvp(event.id))).status).toBe(402);
    // The launcher gives its apps 15 s to stop, then SIGKILL: the grace here is a ceiling for a
    // loaded machine (CI once saw a launcher still stopping after 20 s), not a claim.
    expect(await replica.stop(STOP_GRACE_MS)).toBe(0);

    // kill -9 of one app: it is started again on its own, the others keep their pids and serve.
    const ticketing = children.find((pid) => commandLineOf(pid).includes('apps/ticketing/dist/main.js'));
    expect(ticketing).toBeDefined();
    process.kill(ticketing!, 'SIGKILL');
    await launcher.waitForOutput(
      /ticketing exited \(SIGKILL\); restarting it in 500 ms \(restart 1\)/,
      10_000,
      'stderr',
    );
    const [, restarted] = await launcher.waitForOutput(/ticketing restarted \(pid (\d+)\)/, 10_000, 'stderr');
    expect(isAlive(Number(restarted))).toBe(true);
    expect(children.filter((pid) => pid !== ticketing).every(isAlive)).toBe(true);
    expect((await get(`http://127.0.0.1:${port}/events/${event.id}`)).status).toBe(200); // served meanwhile
    const ticketingProbe = rows.find(([name]) => name === 'ticketing')![1] as number;
    await waitFor('ticketing ready again', async () =>
      (await get(`http://127.0.0.1:${ticketingProbe}/readyz`)).status === 200 ? true : undefined,
    );
    expect((await problemOf(client().tickets.rsvp(event.id))).status).toBe(402);
    children = [...children.filter((pid) => pid !== ticketing), Number(restarted)];

    expect(await launcher.stop(STOP_GRACE_MS)).toBe(0);
    expect(launcher.stdout).toContain(`SIGTERM: stopping ${apps.join(', ')}`);
    expect([...children, natsServer!].filter(isAlive)).toEqual([]);
    await expect(fetch(`http://127.0.0.1:${probeBase}/healthz`)).rejects.toThrow();
  });
});
