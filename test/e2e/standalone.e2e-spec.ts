import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventView, Page } from '@townhall/contracts';
import { freePort, REPO_ROOT } from '@townhall/testing';

/** The environment of a laptop with only Node.js: no server URLs, so every part is embedded. */
function laptopEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['DATABASE_URL', 'NATS_URL', 'REDIS_URL', 'PORT', 'LOG_LEVEL', 'NODE_OPTIONS'])
    delete env[name];
  return env;
}

interface Running {
  child: ChildProcess;
  output: string[];
  bootSeconds: number;
  exited: Promise<number | null>;
}

/** `npm start -- <args>` (build, then standalone) as its own process group, until it says it runs. */
async function npmStart(args: string[]): Promise<Running> {
  const child = spawn('npm', ['start', '--silent', '--', ...args], {
    cwd: REPO_ROOT,
    env: laptopEnv(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return running(child);
}

function running(child: ChildProcess): Promise<Running> {
  const output: string[] = [];
  // 'close', not 'exit': the last output may still be in the pipes when the process exits.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 60 s:\n${output.join('')}`)), 60_000);
    const collect = (chunk: Buffer) => {
      output.push(chunk.toString());
      const match = /Townhall is running \(standalone\) in ([\d.]+) s/.exec(output.join(''));
      if (match) {
        clearTimeout(timer);
        resolve({ child, output, bootSeconds: Number(match[1]), exited });
      }
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before it ran:\n${output.join('')}`));
    });
  });
}

/** Ctrl-C to the whole group (npm, and the node process under it); true if Townhall stopped cleanly. */
async function stop(run: Running | undefined): Promise<boolean> {
  if (!run || run.child.exitCode !== null || run.child.signalCode !== null) return false;
  process.kill(-run.child.pid!, 'SIGINT');
  const timer = setTimeout(() => process.kill(-run.child.pid!, 'SIGKILL'), 15_000);
  try {
    await run.exited;
  } finally {
    clearTimeout(timer);
  }
  // npm itself exits by the signal; the node process says whether its stop was clean.
  return run.output.join('').includes('Townhall stopped');
}

function runNode(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: laptopEnv() });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('standalone: npm start on a laptop with only Node.js', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'townhall-standalone-'));
  let port: number;
  let townhall: Running | undefined;

  beforeAll(async () => {
    port = await freePort();
  });
  afterAll(async () => {
    await stop(townhall);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs a whole AMA, stops cleanly, and finds everything again after a restart', async () => {
    const url = `http://localhost:${port}`;
    townhall = await npmStart(['--data-dir', dataDir, '--port', String(port)]);
    const banner = townhall.output.join('');
    expect(banner).toContain(`API        ${url}`);
    expect(banner).toContain(`${url}/docs`);
    expect(banner).toContain(`PGlite in ${join(dataDir, 'pgdata')}`);
    // First start copies the migrated template (made by `npm install`: pglite-template.ts).
    expect(townhall.bootSeconds).toBeLessThan(20);

    // Only one process may own a data folder.
    const second = await runNode(['apps/standalone/dist/main.js', '--data-dir', dataDir, '--port', '0']);
    expect(second.code).toBe(1);
    expect(second.output).toMatch(/is in use by another Townhall/);

    const docs = await fetch(`${url}/docs`);
    expect(docs.status).toBe(200);
    const openapi = (await (await fetch(`${url}/openapi.json`)).json()) as { openapi: string };
    expect(openapi.openapi).toMatch(/^3\.1/);

    const demo = await runNode(['apps/cli/dist/main.js', 'demo', '--url', url]);
    if (demo.code !== 0) throw new Error(`demo failed:\n${demo.output}`);

    const before = (await (await fetch(`${url}/events?limit=100`)).json()) as Page<EventView>;
    const ended = before.items.filter((event) => event.status === 'past');
    expect(ended.length).toBeGreaterThanOrEqual(1);
    const recordingBefore = await (await fetch(`${url}/events/${ended[0]!.id}/recording`)).json();

    expect(await stop(townhall)).toBe(true);
    expect(existsSync(join(dataDir, 'townhall.pid'))).toBe(false);

    townhall = await npmStart(['--data-dir', dataDir, '--port', String(port)]);
    // With the database in place, a start is quick.
    expect(townhall.bootSeconds).toBeLessThan(10);
    const after = (await (await fetch(`${url}/events?limit=100`)).json()) as Page<EventView>;
    expect(after.items).toEqual(before.items);
    const recordingAfter = await (await fetch(`${url}/events/${ended[0]!.id}/recording`)).json();
    expect(recordingAfter).toEqual(recordingBefore);
    expect(await stop(townhall)).toBe(true);
  });

  it('keeps nothing with --ephemeral', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'townhall-ephemeral-'));
    try {
      const child = spawn(process.execPath, ['apps/standalone/dist/main.js', '--ephemeral', '--port', '0'], {
        cwd: REPO_ROOT,
        env: { ...laptopEnv(), TOWNHALL_DATA_DIR: empty },
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const run = await running(child);
      expect(run.output.join('')).toContain('PGlite in memory');
      expect(await stop(run)).toBe(true);
      expect(existsSync(join(empty, 'pgdata'))).toBe(false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('with --port 0, holds the port it chose from the start on, so that nothing takes it before the gateway listens', async () => {
    const child = spawn(process.execPath, ['apps/standalone/dist/main.js', '--ephemeral', '--port', '0'], {
      cwd: REPO_ROOT,
      env: laptopEnv(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The ports the process listens on, in the order they were first seen (every 10 ms, from /proc).
    const seen: number[][] = [];
    const watch = setInterval(() => {
      const ports = listeningPortsOf(child.pid!);
      if (ports.length > 0) seen.push(ports);
    }, 10);
    let run: Running | undefined;
    try {
      run = await running(child);
    } finally {
      clearInterval(watch);
    }
    try {
      const port = Number(/API\s+http:\/\/localhost:(\d+)/.exec(run.output.join(''))?.[1]);
      // The embedded Postgres's wire server listens during the start; the gateway's port was held
      // before it (a port let go until the gateway's listen was once taken by then: EADDRINUSE).
      const first = seen.findIndex((ports) => ports.includes(port));
      const others = seen.findIndex((ports) => ports.some((other) => other !== port));
      expect(first).toBeGreaterThanOrEqual(0);
      expect(others).toBeGreaterThanOrEqual(0);
      expect(first).toBeLessThanOrEqual(others);
    } finally {
      expect(await stop(run)).toBe(true);
    }
  });
});

/** The TCP ports `pid` listens on (Linux /proc: its socket inodes among the listening sockets). */
function listeningPortsOf(pid: number): number[] {
  try {
    const inodes = new Set<string>();
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const target = (() => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          return '';
        }
      })();
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    }
    const ports: number[] = [];
    for (const table of ['tcp', 'tcp6']) {
      const lines = readFileSync(`/proc/${pid}/net/${table}`, 'utf8').trim().split('\n').slice(1);
      for (const line of lines) {
        const fields = line.trim().split(/\s+/);
        // local_address (hex ip:port), state 0A is LISTEN, inode is the tenth field.
        if (fields[3] === '0A' && inodes.has(fields[9]!)) ports.push(parseInt(fields[1]!.split(':')[1]!, 16));
      }
    }
    return ports;
  } catch {
    return []; // gone, or not yet there
  }
}
