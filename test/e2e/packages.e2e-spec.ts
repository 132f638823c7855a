import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { jest } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { compileCacheEnv, freePort, REPO_ROOT, StandaloneProcess } from '@townhall/testing';

const run = promisify(execFile);
/**
 * How long one step may take: on a loaded two-core machine packing and installing is slow, which
 * is expected; a hang is not.
 */
const SLOW_MS = 150_000;
jest.setTimeout(SLOW_MS);

/**
 * The published form of the SDK and the CLI, as a stranger gets it: `tools/pack.mjs` makes the
 * tarballs, they are installed into an empty project outside the workspace (no workspace links;
 * their npm dependencies from npm's cache, `--offline`: the test sends nothing off the machine),
 * and the root README's SDK snippet and the CLI run from there against a standalone server.
 */
describe('the published packages, installed outside the workspace', () => {
  let work = '';
  let project = '';
  let home = '';
  let standalone: StandaloneProcess | undefined;
  let baseUrl = '';
  let rpcUrl = '';
  const tarballs: Record<string, string> = {};

  const sh = (file: string, args: string[], env: Record<string, string> = {}, cwd = project) =>
    run(file, args, {
      cwd,
      env: { PATH: process.env['PATH'] ?? '', ...compileCacheEnv(), HOME: home, ...env },
      timeout: SLOW_MS,
      maxBuffer: 16 * 1024 * 1024,
    });
  const townhall = (...args: string[]) =>
    sh(join(project, 'node_modules/.bin/townhall'), args, { TOWNHALL_URL: baseUrl });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'townhall-packages-'));
    project = join(work, 'project');
    home = join(work, 'home');
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const rpcPort = await freePort();
    rpcUrl = `http://127.0.0.1:${rpcPort}`;
    await Promise.all([
      run(process.execPath, ['tools/pack.mjs', '--out', join(work, 'tarballs')], {
        cwd: REPO_ROOT,
        timeout: 2 * SLOW_MS,
      }),
      // It sells in USDC on a local Solana, for the stranger's SDK to pay there.
      StandaloneProcess.start(
        {
          PUBLIC_BASE_URL: baseUrl,
          X402_FACILITATOR: 'solana-local',
          SOLANA_LOCAL_RPC_PORT: String(rpcPort),
          // The stranger's SDK takes 5 test USDC in one faucet call.
          LEDGER_FAUCET_MAX_AMOUNT: '5000000',
        },
        port,
        { startTimeoutMs: SLOW_MS },
      ).then((started) => (standalone = started)),
    ]);
    for (const file of readdirSync(join(work, 'tarballs')).filter((name) => name.endsWith('.tgz')))
      tarballs[`@townhall/${/^townhall-([a-z]+)-/.exec(file)![1]!}`] = join(work, 'tarballs', file);
    expect(Object.keys(tarballs).sort()).toEqual(['@townhall/cli', '@townhall/sdk']);
    await run('mkdir', ['-p', project, home]);
    const tarball = (name: string) => tarballs[name]!;
    const manifests = ['@townhall/sdk', '@townhall/cli'].map((name) => packedManifest(tarball(name)));
    const dependencies = {
      '@townhall/sdk': `file:${tarball('@townhall/sdk')}`,
      '@townhall/cli': `file:${tarball('@townhall/cli')}`,
    };
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'stranger', version: '1.0.0', private: true, type: 'module', dependencies }),
    );
    writeFileSync(
      join(project, 'package-lock.json'),
      JSON.stringify(offlineLock(dependencies, manifests, tarball)),
    );
    // npm's own configuration and cache are the user's (the registry, the cached packages).
    await sh('npm', ['install', '--offline', '--no-audit', '--no-fund'], {
      HOME: process.env['HOME'] ?? home,
    });
  }, 4 * SLOW_MS);

  afterAll(async () => {
    await standalone?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('packs built JavaScript, .d.ts, a README and a license; no sources, no tests, no workspace dependency', async () => {
    for (const [name, tarball] of Object.entries(tarballs)) {
      const { stdout } = await run('tar', ['tzf', tarball]);
      const files = stdout.trim().split('\n');
      expect(files).toEqual(
        expect.arrayContaining(['package/package.json', 'package/README.md', 'package/LICENSE']),
      );
      expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
      expect(files.filter((file) => /spec|test/.test(file))).toEqual([]);
      const manifest = JSON.parse(
        readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8'),
      ) as {
        private?: boolean;
        license: string;
        dependencies: Record<string, string>;
        exports: Record<string, { types: string; default: string }>;
      };
      expect(manifest.private).toBeUndefined();
      expect(manifest.license).toBe('Apache-2.0');
      for (const target of Object.values(manifest.exports)) {
        expect(target.types).toMatch(/\.d\.ts$/);
        expect(target.default).toMatch(/\.js$/);
      }
      // Only the published SDK may be a @townhall dependency; auth, contracts and x402 are inside.
      expect(Object.keys(manifest.dependencies).filter((dep) => dep.startsWith('@townhall/'))).toEqual(
        name === '@townhall/cli' ? ['@townhall/sdk'] : [],
      );
    }
  });

  it('installs real files, not links into the workspace', () => {
    for (const name of ['@townhall/sdk', '@townhall/cli']) {
      const dir = join(project, 'node_modules', name);
      expect(lstatSync(dir).isSymbolicLink()).toBe(false);
      expect(realpathSync(dir).startsWith(REPO_ROOT)).toBe(false);
    }
  });

  it("runs the root README's SDK snippet against a server", async () => {
    const snippet = readmeBlock('ts', "import { AgentClient, TownhallError } from '@townhall/sdk';");
    // The one change: the server's address (the README's is http://localhost:3000).
    writeFileSync(join(project, 'snippet.mjs'), snippet.replaceAll('http://localhost:3000', baseUrl));
    const { stdout } = await sh(process.execPath, ['snippet.mjs']);
    expect(stdout.trim()).toBe('404 directory.handle_not_found');
  });

  it('pays for a ticket in USDC on the local chain from the installed SDK (the official x402 client inside)', async () => {
    writeFileSync(
      join(project, 'pay.mjs'),
      `import { AgentClient } from '@townhall/sdk';
import { walletBalances } from '@townhall/sdk/solana';
const [baseUrl, rpcUrl] = process.argv.slice(2);
const network = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
const host = new AgentClient({ baseUrl });
const buyer = new AgentClient({ baseUrl });
const startsAt = new Date(Date.now() + 3_600_000);
const event = await host.events.create({
  title: 'Paid from the package',
  startsAt: startsAt.toISOString(),
  endsAt: new Date(startsAt.getTime() + 3_600_000).toISOString(),
  timezone: 'UTC',
  capacity: 5,
  ticketing: { mode: 'single', price: '1500000' },
});
await buyer.ledger.faucet('5000000', undefined, network);
const { ticket, payment } = await buyer.tickets.rsvp(event.id, { maxPrice: '1500000', network, rpcUrl });
const wallet = await walletBalances(buyer.agentId, { rpcUrl, mint: ticket.asset });
console.log(ticket.status, payment.success, payment.network, String(wallet.tokens));
`,
    );
    const { stdout } = await sh(process.execPath, ['pay.mjs', baseUrl, rpcUrl]);
    expect(stdout.trim()).toBe('active true solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1 3500000');
  });

  it('type-checks against the published .d.ts (strict), the x402 and key-file subpaths included', async () => {
    const snippet = readmeBlock('ts', "import { AgentClient, TownhallError } from '@townhall/sdk';");
    writeFileSync(
      join(project, 'check.ts'),
      `${snippet}
import { loadKeyFile, saveKeyFile, type KeyFileError } from '@townhall/sdk/key-file';
import { encodePaymentHeader, signLedgerPayment } from '@townhall/sdk/x402';
import type { DirectoryCard, EventView } from '@townhall/sdk';
const handle: string = card.handle;
const later: (path: string) => Promise<unknown> = loadKeyFile;
void [handle, later, saveKeyFile, encodePaymentHeader, signLedgerPayment];
export type Seen = [DirectoryCard, EventView, KeyFileError];
`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2023', 'dom'],
          types: [],
          skipLibCheck: false,
        },
        files: ['check.ts'],
      }),
    );
    const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    const result = await sh(process.execPath, [tsc, '-p', 'tsconfig.json']).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout }),
    );
    expect(result.stdout).toBe('');
  });

  it('gives the townhall command: --help, a key, a signed call, whoami', async () => {
    const help = await townhall('--help');
    expect(help.stdout).toMatch(/Usage: townhall/);
    await townhall('keygen');
    const set = await townhall('directory', 'set', '--handle', 'packaged_agent');
    expect(set.stdout).toMatch(/packaged_agent/);
    const { stdout: agentId } = await townhall('whoami');
    expect(agentId.trim()).toMatch(/^[1-9A-HJ-NP-Za-km-z]{43,44}$/);
    const { stdout: card } = await townhall('--json', 'directory', 'get', agentId.trim());
    expect(JSON.parse(card)).toMatchObject({ agentId: agentId.trim(), handle: 'packaged_agent' });
  });

  it('the installed townhall mcp serves its tools over stdio (the key of the test above)', async () => {
    const client = new Client({ name: 'packages-e2e', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: join(project, 'node_modules/.bin/townhall'),
        args: ['--url', baseUrl, 'mcp'],
        cwd: project,
        env: { PATH: process.env['PATH'] ?? '', ...compileCacheEnv(), HOME: home },
        stderr: 'ignore',
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['whoami', 'rsvp', 'events_list']),
      );
      expect(tools).toHaveLength(26);
      const whoami = await client.callTool({ name: 'whoami', arguments: {} });
      expect(whoami.structuredContent).toMatchObject({ handle: 'packaged_agent' });
    } finally {
      await client.close();
    }
  });
});

interface PackedManifest {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
}

function packedManifest(tarball: string): PackedManifest {
  return JSON.parse(
    execFileSync('tar', ['xzf', tarball, '-O', 'package/package.json'], { encoding: 'utf8' }),
  ) as PackedManifest;
}

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

/**
 * A lockfile for the stranger's project, so that `npm install --offline` needs no registry
 * metadata: the two tarballs, and every npm package they need with the version, address and
 * integrity the workspace's own lockfile gave it (so its tarball is in npm's cache). Each
 * dependency (a required peer too) is looked up as npm placed it in the workspace (nested first,
 * then hoisted). With a cold cache too: npm asks for no package's metadata.
 */
function offlineLock(
  dependencies: Record<string, string>,
  manifests: PackedManifest[],
  tarball: (name: string) => string,
): object {
  const workspace = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const packages: Record<string, LockEntry> = { '': { name: 'stranger', version: '1.0.0', dependencies } };
  // [the path of the package that needs it ('' for the tarballs), the dependency's name]
  const pending: Array<[string, string]> = [];
  for (const manifest of manifests) {
    const integrity = `sha512-${createHash('sha512')
      .update(readFileSync(tarball(manifest.name)))
      .digest('base64')}`;
    packages[`node_modules/${manifest.name}`] = {
      version: manifest.version,
      resolved: `file:${tarball(manifest.name)}`,
      integrity,
      license: 'Apache-2.0',
      dependencies: manifest.dependencies,
      ...(manifest.bin ? { bin: manifest.bin } : {}),
      ...(manifest.engines ? { engines: manifest.engines } : {}),
    };
    for (const dep of Object.keys(manifest.dependencies))
      if (!dep.startsWith('@townhall/')) pending.push(['', dep]);
  }
  while (pending.length > 0) {
    const [from, name] = pending.pop()!;
    // Node's lookup: from's own node_modules, then each enclosing package's, then the top.
    const parts = from ? from.split('/node_modules/') : [];
    const candidates = parts.map(
      (_, i) => `${parts.slice(0, parts.length - i).join('/node_modules/')}/node_modules/${name}`,
    );
    const at = [...candidates, `node_modules/${name}`].find((path) => workspace.packages[path]);
    if (!at) throw new Error(`the workspace lockfile has no ${name} for ${from || 'the packages'}`);
    if (packages[at]) continue;
    const entry = workspace.packages[at]!;
    packages[at] = entry;
    for (const dep of Object.keys(entry.dependencies ?? {})) pending.push([at, dep]);
    // npm installs a required peer too, and without its entry here it would ask the registry.
    for (const peer of Object.keys(entry.peerDependencies ?? {}))
      if (!entry.peerDependenciesMeta?.[peer]?.optional) pending.push([at, peer]);
  }
  return { name: 'stranger', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
}

/** The first fenced block of `lang` in the root README that starts with `firstLine`. */
function readmeBlock(lang: string, firstLine: string): string {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```', 'gm'))].map(
    (m) => m[1]!,
  );
  const block = blocks.find((text) => text.startsWith(firstLine));
  if (!block) throw new Error(`README.md has no \`\`\`${lang} block starting with ${firstLine}`);
  return block;
}
