import { spawn, type ChildProcess } from 'node:child_process';
import { REPO_ROOT, fuzzGateway, fuzzTestTimeoutMs } from '@townhall/testing';

/**
 * The fuzzer (libs/testing/src/fuzz) against the standalone process, `--ephemeral --port 0`: the
 * gateway and every service in one process on PGlite. FUZZ_TARGET_URL fuzzes a Townhall that is
 * already running there instead (its rate limits should be off, and its faucet on).
 */
const target = process.env['FUZZ_TARGET_URL'];

/** The environment of a laptop with only Node.js: every part embedded, rate limits off for the fuzzer. */
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
  return { ...env, RATE_LIMIT_WRITES_PER_SECOND: '0', RATE_LIMIT_READS_PER_SECOND: '0' };
}

describe('fuzz: the standalone process', () => {
  let child: ChildProcess | undefined;
  let output = '';
  let exited: Promise<number | null> | undefined;
  let baseUrl = target ?? '';

  beforeAll(async () => {
    if (target) return;
    const started = spawn(process.execPath, ['apps/standalone/dist/main.js', '--ephemeral', '--port', '0'], {
      cwd: REPO_ROOT,
      env: laptopEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    const done = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));
    exited = done;
    const port = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start within 40 s:\n${output}`)), 40_000);
      const collect = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /API\s+http:\/\/localhost:(\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      };
      started.stdout?.on('data', collect);
      started.stderr?.on('data', collect);
      void done.then((code) => reject(new Error(`exited with ${code} before it ran:\n${output}`)));
    });
    baseUrl = `http://127.0.0.1:${port}`;
  }, 45_000);

  afterAll(async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child?.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  });

  const running = () => !child || (child.exitCode === null && child.signalCode === null);

  it(
    'answers every fuzzed request without a 5xx, with problem+json errors, and refusals change nothing',
    async () => {
      const report = await fuzzGateway({
        baseUrl,
        isAlive: running,
        log: (line) => process.stdout.write(`${line}\n`),
      });
      expect(running()).toBe(true);
      expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
      expect(report.sent).toBeGreaterThan(0);
      // The report printed above has each class's smallest reproduction and FUZZ_SEED / FUZZ_ONLY.
      expect(report.classes.map((failureClass) => failureClass.key)).toEqual([]);
    },
    fuzzTestTimeoutMs(),
  );
});
