// The image's commands, outside Docker: for each app, the final stage's CMD (with APP set as
// `--build-arg APP=<app>` sets it) and ENV run from the repository root, which is laid out
// like the image's /app, against the real servers. Each service's migrate command
// (`docker run <image> node apps/<svc>/dist/migrate.js`, the compose migrate step and the
// Kubernetes Job) runs first on a fresh database; every app must answer 200 on /healthz and
// /readyz (and /metrics) on its operators' port (the gateway on its public port too), pass the
// image's HEALTHCHECK, and exit 0 on SIGTERM. Needs `npm run build`.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import { busAppOf } from '@townhall/contracts';
import {
  APPS,
  compileCacheEnv,
  createTestDatabase,
  freePort,
  natsEnvOf,
  PrivateNatsServer,
  REDIS_URL,
  REPO_ROOT,
  type TestDatabase,
  waitFor,
} from '@townhall/testing';
import { ParsedDockerfile } from './dockerfile.js';

const ALL_APPS = [APPS.gateway, ...APPS.services];
const dockerfile = new ParsedDockerfile(readFileSync(join(REPO_ROOT, 'docker/Dockerfile'), 'utf8'));
const compose = parse(readFileSync(join(REPO_ROOT, 'docker/compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, { command?: string[] }>;
};

/** One command of an image run as a container would run it: argv, environment, working directory. */
class ContainerProcess {
  readonly logs: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcess;

  constructor(
    readonly name: string,
    argv: string[],
    env: Record<string, string>,
  ) {
    // Only the image's environment and the container's own; PATH to find node as the image does.
    this.child = spawn(argv[0]!, argv.slice(1), {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...compileCacheEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer) => this.logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    this.child.stdout!.on('data', collect);
    this.child.stderr!.on('data', collect);
    const dir = process.env['TOWNHALL_TEST_LOG_DIR'];
    if (dir) {
      void mkdir(dir, { recursive: true }).then(() => {
        const file = createWriteStream(join(dir, `image-${name}-${this.child.pid ?? 'x'}.log`));
        file.write(`${this.logs.join('\n')}\n`);
        this.child.stdout!.pipe(file, { end: false });
        this.child.stderr!.pipe(file, { end: false });
        void this.exited.then(() => file.end());
      });
    }
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGTERM (as `docker stop` and Kubernetes send it), SIGKILL after the grace period. */
  async stop(graceMs = 15_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.running) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  tail(lines = 30): string {
    return `--- ${this.name}\n${this.logs.slice(-lines).join('\n')}`;
  }
}

async function status(url: string): Promise<number | undefined> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(3_000) })).status;
  } catch {
    return undefined;
  }
}

let database: TestDatabase;
let nats: PrivateNatsServer;
const running = new Map<string, { process: ContainerProcess; urls: string[]; env: Record<string, string> }>();

beforeAll(async () => {
  const missing = [...ALL_APPS.map((app) => `apps/${app}/dist/main.js`)].filter(
    (path) => !existsSync(join(REPO_ROOT, path)),
  );
  if (missing.length > 0) throw new Error(`build first (npm run build): missing ${missing.join(', ')}`);
  [database, nats] = await Promise.all([createTestDatabase('townhall_image'), PrivateNatsServer.start()]);
});

afterAll(async () => {
  await Promise.all([...running.values()].map(({ process }) => process.stop()));
  await database?.drop();
  await nats?.destroy();
});

it('the migrate command of every service, as the compose file and the Jobs run it, succeeds', async () => {
  // All four at once, as the Kubernetes Jobs run (each service migrates its own schema).
  const results = await Promise.all(
    APPS.services.map(async (service) => {
      const argv = compose.services[`${service}-migrate`]!.command!;
      expect(argv).toEqual(['node', `apps/${service}/dist/migrate.js`]);
      const migrate = new ContainerProcess(`${service}-migrate`, argv, {
        ...dockerfile.imageConfig({ APP: service }).env,
        DATABASE_URL: database.url,
      });
      const { code } = await migrate.exited;
      return [service, code, code === 0 ? '' : migrate.tail()];
    }),
  );
  expect(results).toEqual(APPS.services.map((service) => [service, 0, '']));
});

it('every app started by the image CMD becomes live and ready, and passes the HEALTHCHECK', async () => {
  for (const app of ALL_APPS) {
    const image = dockerfile.imageConfig({ APP: app });
    expect(image.workdir).toBe('/app'); // the repository root stands for /app
    // The image sets PROBE_PORT=9464; here every port is a free one.
    const probePort = await freePort();
    const port = await freePort();
    const env: Record<string, string> = {
      ...image.env,
      TOWNHALL_ENV: 'development',
      LOG_LEVEL: 'info',
      ...natsEnvOf(nats, busAppOf(app)),
      PROBE_PORT: String(probePort),
      ...(app === APPS.gateway
        ? { PORT: String(port), HOST: '127.0.0.1', REDIS_URL, PUBLIC_BASE_URL: `http://127.0.0.1:${port}` }
        : { DATABASE_URL: database.url }),
    };
    running.set(app, {
      process: new ContainerProcess(app, [...image.entrypoint, ...image.cmd], env),
      // The operators' port of every app, and the gateway's public port too.
      urls: [`http://127.0.0.1:${probePort}`, ...(app === APPS.gateway ? [`http://127.0.0.1:${port}`] : [])],
      env,
    });
  }

  await Promise.all(
    [...running.entries()].map(async ([app, { process, urls, env }]) => {
      try {
        for (const url of urls) {
          for (const path of ['/healthz', '/readyz']) {
            await waitFor(`${app} ${url}${path}`, async () => {
              if (!process.running) throw new Error(`exited\n${process.tail()}`);
              return (await status(`${url}${path}`)) === 200 || undefined;
            });
          }
        }
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${process.tail()}`, { cause: error });
      }
      // What the Prometheus annotations point at: /metrics on the operators' port.
      expect([app, await status(`${urls[0]}/metrics`)]).toEqual([app, 200]);
      // `exec` in the CMD: the process started is node itself, as PID 1 of a container would be.
      // (The executable, not /proc/<pid>/comm: Node 24 names its main thread "MainThread".)
      expect(basename(readlinkSync(`/proc/${process.pid}/exe`))).toBe('node');
      // The image's HEALTHCHECK, with the container's environment.
      const healthcheck = new ContainerProcess(
        `${app}-healthcheck`,
        dockerfile.imageConfig({ APP: app }).healthcheck!,
        env,
      );
      expect([app, (await healthcheck.exited).code, healthcheck.logs]).toEqual([app, 0, []]);
    }),
  );

  // And the HEALTHCHECK fails when nothing answers.
  const closed = await freePort();
  const failing = new ContainerProcess(
    'healthcheck-closed',
    dockerfile.imageConfig({ APP: 'events' }).healthcheck!,
    {
      ...dockerfile.imageConfig({ APP: 'events' }).env,
      PROBE_PORT: String(closed),
    },
  );
  expect((await failing.exited).code).toBe(1);
});

it('every app stops on SIGTERM with exit code 0', async () => {
  expect([...running.keys()].sort()).toEqual([...ALL_APPS].sort());
  const results = await Promise.all(
    [...running.entries()].map(async ([app, { process }]) => {
      const { code, signal } = await process.stop();
      return [app, code, signal, code === 0 ? '' : process.tail()];
    }),
  );
  expect(results).toEqual(ALL_APPS.map((app) => [app, 0, null, '']));
  running.clear();
});
