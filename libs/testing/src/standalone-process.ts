import { spawn, type ChildProcess } from 'node:child_process';
import { entryPoint, REPO_ROOT } from './app-process.js';

/**
 * `npm start` as a laptop with only Node.js runs it: the built standalone process (`entryPoint`)
 * with every part embedded (no DATABASE_URL, NATS_URL or REDIS_URL from the test machine),
 * `--ephemeral --port 0`, its own process stopped by pid. `env` is laid over that laptop
 * environment. `port` fixes the port instead (a test that must know the audience,
 * `http://127.0.0.1:<port>`, before the start). `dataDir` keeps its data there (`--data-dir`)
 * instead, so that a restart finds it again; `args` are more options of its command line
 * (`--traces`).
 */
export class StandaloneProcess {
  private output = '';

  private constructor(
    private readonly child: ChildProcess,
    private readonly exited: Promise<number | null>,
    /** http://127.0.0.1:<port> */
    public baseUrl = '',
  ) {}

  static async start(
    env: Record<string, string> = {},
    port = 0,
    {
      dataDir,
      // A ceiling, not a claim (it starts in about 3 s): on a loaded two-core machine a start once
      // printed nothing in 40 s.
      startTimeoutMs = 120_000,
      args = [],
    }: { dataDir?: string; startTimeoutMs?: number; args?: string[] } = {},
  ): Promise<StandaloneProcess> {
    const storage = dataDir === undefined ? ['--ephemeral'] : ['--data-dir', dataDir];
    const childEnv = { ...laptopEnv(), ...env };
    const child = spawn(
      process.execPath,
      [
        entryPoint('standalone', 'main.js', { env: childEnv, args }),
        ...storage,
        '--port',
        String(port),
        ...args,
      ],
      { cwd: REPO_ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const running = new StandaloneProcess(child, exited);
    running.baseUrl = await new Promise<string>((resolve, reject) => {
      // A start that takes too long is ended too: nothing a test starts outlives it.
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`no start within ${startTimeoutMs / 1000} s:\n${running.output}`));
      }, startTimeoutMs);
      const collect = (chunk: Buffer) => {
        running.output += chunk.toString();
        const match = /API\s+http:\/\/localhost:(\d+)/.exec(running.output);
        if (match) {
          clearTimeout(timer);
          resolve(`http://127.0.0.1:${match[1]}`);
        }
      };
      child.stdout?.on('data', collect);
      child.stderr?.on('data', collect);
      // A process that exits first ends the wait and its timer: a timer left pending held the test
      // run's process up to startTimeoutMs after its last test (a start refused with exit 78).
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`exited with ${code} before it ran:\n${running.output}`));
      });
    });
    return running;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Everything it printed so far. */
  get log(): string {
    return this.output;
  }

  /** SIGTERM, then SIGKILL after 10 s; resolves once it has exited. */
  async stop(): Promise<void> {
    if (!this.alive) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }
}

function laptopEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    'DATABASE_URL',
    'NATS_URL',
    'REDIS_URL',
    'PORT',
    'LOG_LEVEL',
    'NODE_OPTIONS',
    'PUBLIC_BASE_URL',
  ])
    delete env[name];
  return env;
}
