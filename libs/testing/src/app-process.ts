import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * What a process a test starts with an environment of its own keeps of the test's: Node's compile
 * cache (NODE_COMPILE_CACHE, which jest.config.js sets), so that the few hundred app, standalone
 * and CLI processes of a run compile each module of the build once, not once each. It changes
 * nothing a process does or says, and names no server.
 */
export function compileCacheEnv(): Record<string, string> {
  const dir = process.env['NODE_COMPILE_CACHE'];
  return dir ? { NODE_COMPILE_CACHE: dir } : {};
}

/**
 * The file to run for `apps/<app>/dist/<script>`: its bundle where the e2e project's globalSetup
 * made one (tools/app-bundles.mjs names their folder in TOWNHALL_TEST_APP_BUNDLES: the same code in
 * one file, which starts on a third less CPU), else the build output itself. A process that traces
 * (OTEL_EXPORTER_OTLP_*ENDPOINT in `env`, or `--traces` in `args`) runs the build output: the
 * Postgres instrumentation hooks the driver as Node loads it, after the tracing starts, and a bundle
 * has Node load the driver (left out of it) before anything of its own runs.
 */
export function entryPoint(
  app: string,
  script = 'main.js',
  { env = {}, args = [] }: { env?: Record<string, string | undefined>; args?: string[] } = {},
): string {
  const dist = `apps/${app}/dist/${script}`;
  const traced =
    args.includes('--traces') ||
    Boolean(env['OTEL_EXPORTER_OTLP_ENDPOINT'] || env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']);
  const bundles = process.env['TOWNHALL_TEST_APP_BUNDLES'];
  if (traced || !bundles || bundles === 'off') return dist;
  const bundle = join(bundles, app, script);
  return existsSync(bundle) ? bundle : dist;
}

/**
 * One app of the real topology, started as its own process from its build output
 * (`npm test` builds first; `entryPoint`), as `npm run start:distributed` runs it.
 * Tests stop it by pid; nothing outlives the test that started it.
 */
export class AppProcess {
  readonly logs: string[] = [];
  private exited: Promise<number | null>;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    /** The environment it was started with (its PROBE_PORT, PORT, ...). */
    readonly env: Record<string, string>,
  ) {
    const collect = (chunk: Buffer) => this.logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    // CI keeps every app's whole log as an artifact (TOWNHALL_TEST_LOG_DIR, under /tmp).
    const dir = process.env['TOWNHALL_TEST_LOG_DIR'];
    if (dir) {
      mkdirSync(dir, { recursive: true });
      const file = createWriteStream(join(dir, `${name}-${child.pid ?? 'x'}.log`));
      child.stdout?.pipe(file, { end: false });
      child.stderr?.pipe(file, { end: false });
      child.once('exit', () => file.end());
    }
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  static start(app: string, env: Record<string, string>, script = 'main.js'): AppProcess {
    const child = spawn(process.execPath, [entryPoint(app, script, { env })], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...compileCacheEnv(), LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new AppProcess(app, child, env);
  }

  /** Runs a one-shot command of an app (e.g. migrate) to completion; returns its log lines. */
  static async run(app: string, script: string, env: Record<string, string>): Promise<string[]> {
    const process = AppProcess.start(app, env, script);
    const code = await process.exited;
    if (code !== 0) throw new Error(`${app} ${script} exited with ${code}:\n${process.logs.join('\n')}`);
    return process.logs;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGTERM, then SIGKILL if it has not stopped within the grace period. */
  async stop(graceMs = 10_000): Promise<number | null> {
    if (!this.running) return this.exited;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  async kill(): Promise<void> {
    if (this.running) this.child.kill('SIGKILL');
    await this.exited;
  }
}
