import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileCacheEnv, freePort, REPO_ROOT, StandaloneProcess } from '@townhall/testing';

/**
 * Every command the root README's first-calls block, the curl block of docs/api.md, the "Getting
 * paid in USDC" block of docs/tickets-and-payments.md and the standalone banner print, run as
 * printed (read from those files and from the running server's own output at test time, so an
 * edit that breaks one fails here) through bash from the repository root, with a HOME
 * of its own. They address http://localhost:3000, so the server takes port 3000 when it is free
 * and the commands run exactly as printed; when 3000 is taken (a developer's own `npm start`),
 * `localhost:3000` in them is replaced by the server's port and TOWNHALL_URL points there: the
 * only change ever made to them. Not run here: `npm install && npm start` and `npm test` (this
 * suite is `npm test`; `npm start` is the server below, built as `npm start` builds it), the SDK
 * snippet (test/e2e/packages.e2e-spec.ts runs it from the published package), and the MCP
 * configuration, whose `townhall mcp` test/e2e/mcp.e2e-spec.ts runs as an MCP client does.
 */
describe('the commands the README and the start banner print, as printed', () => {
  let standalone: StandaloneProcess | undefined;
  let port = 3000;
  let work = '';

  beforeAll(async () => {
    if (!(await portIsFree(3000))) port = await freePort();
    standalone = await StandaloneProcess.start({}, port);
    work = mkdtempSync(join(tmpdir(), 'townhall-readme-'));
  });

  afterAll(async () => {
    await standalone?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const asPrinted = (command: string) =>
    port === 3000 ? command : command.replaceAll('localhost:3000', `localhost:${port}`);

  /**
   * One printed command through bash, with HOME at `home`; resolves with its exit code and output.
   * Stopped (SIGTERM to its process group) after `timeoutMs`, or half a second after its output
   * first contains `until`.
   */
  function shell(
    command: string,
    home: string,
    timeoutMs = 60_000,
    until?: string,
    env: Record<string, string> = {},
  ): Promise<Run> {
    return new Promise((resolve) => {
      const child = spawn('bash', ['-c', asPrinted(command)], {
        cwd: REPO_ROOT,
        env: {
          PATH: process.env['PATH'] ?? '',
          ...compileCacheEnv(),
          HOME: home,
          ...(port === 3000 ? {} : { TOWNHALL_URL: `http://localhost:${port}` }),
          ...env,
          // npm's configuration and cache stay the user's, as they are for whoever types this.
          npm_config_userconfig: join(process.env['HOME'] ?? '/root', '.npmrc'),
          npm_config_cache: join(process.env['HOME'] ?? '/root', '.npm'),
          npm_config_update_notifier: 'false',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true, // its own process group, so a follower and its npx are stopped together
      });
      let stdout = '';
      let stderr = '';
      let timer = setTimeout(() => process.kill(-child.pid!, 'SIGTERM'), timeoutMs);
      let seen = false;
      const collect = (chunk: Buffer, into: 'stdout' | 'stderr') => {
        if (into === 'stdout') stdout += chunk.toString();
        else stderr += chunk.toString();
        if (until === undefined || seen || !(stdout + stderr).includes(until)) return;
        seen = true;
        clearTimeout(timer);
        timer = setTimeout(() => process.kill(-child.pid!, 'SIGTERM'), 500);
      };
      child.stdout.on('data', (chunk: Buffer) => collect(chunk, 'stdout'));
      child.stderr.on('data', (chunk: Buffer) => collect(chunk, 'stderr'));
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ command, code, signal, stdout, stderr });
      });
    });
  }

  it('the first calls after npm start', async () => {
    const home = join(work, 'readme');
    const commands = firstCalls();
    expect(commands.map((c) => c.split(' ').slice(0, 3).join(' '))).toEqual([
      'npm run demo',
      'npx townhall keygen',
      'npx townhall directory',
      'npx townhall events',
      'npx townhall events',
      'npx townhall ledger',
      'npx townhall stage',
      'npx townhall sign',
    ]);
    let eventId = '';
    for (const command of commands) {
      const filled = command.replaceAll('<eventId>', eventId);
      if (command.includes('stage tail')) {
        // A follower: it runs until stopped. It must connect and keep running.
        const following = `following ${eventId} live`;
        const run = await shell(filled, home, 60_000, following);
        expect({ command, signal: run.signal, stderr: run.stderr }).toMatchObject({ signal: 'SIGTERM' });
        expect(run.stdout + run.stderr).toContain(following);
        continue;
      }
      const run = await shell(filled, home, 120_000);
      expect({ command, code: run.code, stderr: run.code === 0 ? '' : run.stderr }).toEqual({
        command,
        code: 0,
        stderr: '',
      });
      if (command.startsWith('npm run demo')) expect(run.stdout).toMatch(/^done: /m);
      if (command.includes('events create')) {
        eventId = /^\s+id\s+([0-9a-f-]{36})$/m.exec(run.stdout)?.[1] ?? '';
        expect(eventId).not.toBe('');
      }
      if (command.includes('events list')) expect(run.stdout).toContain(eventId);
      if (command.includes(' rsvp ')) expect(run.stdout).toMatch(/^ticket \S+\s+active/m);
      if (command.includes(' sign ')) expect(run.stdout).toMatch(/-H 'authorization: service /);
    }
  });

  it('the curl block signs with the SDK and the server accepts it', async () => {
    const run = await shell(docBlock('docs/api.md', '### With curl', 'sh'), join(work, 'curl'));
    expect({ code: run.code, stderr: run.code === 0 ? '' : run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toMatchObject({ handle: 'curl_agent' });
  });

  it("the standalone banner's first calls", async () => {
    // A server of its own (the banner names its own address, so its commands need no change):
    // someone who follows the banner has not also followed the README, whose agent holds @my_agent.
    const own = await StandaloneProcess.start();
    try {
      const banner = own.log;
      const block = /^First calls:\n((?: {2}.+\n)+)/m.exec(banner)?.[1];
      expect(block).toBeDefined();
      const commands = block!
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean);
      expect(commands).toHaveLength(3);
      const home = join(work, 'banner');
      for (const command of commands) {
        const run = await shell(command, home, 120_000);
        expect({ command, code: run.code, stderr: run.code === 0 ? '' : run.stderr }).toEqual({
          command,
          code: 0,
          stderr: '',
        });
        if (command.startsWith('curl')) expect(JSON.parse(run.stdout)).toHaveProperty('items');
        if (command.includes('directory set')) expect(run.stdout).toContain('@my_agent');
      }
    } finally {
      await own.stop();
    }
  });

  it('the "Getting paid in USDC" block, against npm start -- --solana-local', async () => {
    // A server of its own, its chain's JSON-RPC on 8899 as printed when that port is free (else on
    // another, which is then the one change made to the commands), reached through TOWNHALL_URL.
    const rpcPort = (await portIsFree(8899)) ? 8899 : await freePort();
    const own = await StandaloneProcess.start({
      X402_FACILITATOR: 'solana-local',
      SOLANA_LOCAL_RPC_PORT: String(rpcPort),
    });
    try {
      expect(own.log).toContain(`JSON-RPC http://127.0.0.1:${rpcPort}`);
      const home = join(work, 'usdc');
      const env = { TOWNHALL_URL: own.baseUrl.replace('127.0.0.1', 'localhost') };
      expect((await shell('npx townhall keygen', home, 60_000, undefined, env)).code).toBe(0);
      const commands = docBlock('docs/tickets-and-payments.md', '## Getting paid in USDC', 'sh')
        .split('\n')
        .map((line) => line.replace(/\s+#.*$/, '').trim())
        .filter(Boolean);
      expect(commands.map((c) => c.split(' ').slice(0, 3).join(' '))).toEqual([
        'npx townhall wallet',
        'npx townhall wallet',
        'npm run demo',
      ]);
      for (const command of commands) {
        const run = await shell(
          command.replaceAll('127.0.0.1:8899', `127.0.0.1:${rpcPort}`),
          home,
          120_000,
          undefined,
          env,
        );
        expect({ command, code: run.code, stderr: run.code === 0 ? '' : run.stderr }).toEqual({
          command,
          code: 0,
          stderr: '',
        });
        if (command.includes('wallet faucet'))
          expect(run.stdout).toMatch(/^minted 1 USDC \(1000000\) to your token account/m);
        if (command.includes('wallet --rpc')) expect(run.stdout).toMatch(/^USDC\s+1 USDC \(1000000\)/m);
        if (command.startsWith('npm run demo')) {
          expect(run.stdout).toMatch(/Solana transaction \S+\)$/m);
          expect(run.stdout).toMatch(/went from 0 USDC to 0\.0075 USDC/);
          expect(run.stdout).toMatch(/^done: /m);
        }
      }
    } finally {
      await own.stop();
    }
  });
});

interface Run {
  command: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The README's "Then, in another terminal" block, one command per line, comments dropped. */
function firstCalls(): string[] {
  return docBlock('README.md', 'Then, in another terminal', 'sh')
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

/** The first fenced `lang` block after the line `heading` in `file` (a path from the repository's root). */
function docBlock(file: string, heading: string, lang: string): string {
  const text = readFileSync(join(REPO_ROOT, file), 'utf8');
  const at = text.indexOf(heading);
  if (at < 0) throw new Error(`${file} has no "${heading}"`);
  const start = text.indexOf('```' + lang + '\n', at);
  const end = text.indexOf('\n```', start);
  return text.slice(start + lang.length + 4, end + 1);
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
