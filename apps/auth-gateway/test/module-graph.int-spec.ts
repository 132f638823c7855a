import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_EXIT_CODE } from '@townhall/platform';

/** The gateway as it is deployed: the build's entry point. */
const ENTRY = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/**
 * Loads the entry with a resolve hook that records every module URL, whether `import` or
 * `require` asked for it, and writes them to a file as the process exits, one a line (a pipe
 * would take only part of a write that large at exit).
 */
const RECORDER = `
import { registerHooks } from 'node:module';
import { writeFileSync } from 'node:fs';
const resolved = [];
registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    resolved.push(result.url);
    return result;
  },
});
process.on('exit', () => writeFileSync(process.env.RESOLVED_MODULES, resolved.join('\\n')));
await import(process.env.GATEWAY_ENTRY);
`;

/** Runs the recorder on the entry: its exit code and every URL it resolved. */
async function loadEntry(env: NodeJS.ProcessEnv): Promise<{ exit: unknown; resolved: string[] }> {
  const record = join(tmpdir(), `gateway-module-graph-${randomUUID()}.txt`);
  try {
    const exit = await new Promise((resolve) =>
      execFile(
        process.execPath,
        ['--input-type=module', '--eval', RECORDER],
        { env: { ...env, GATEWAY_ENTRY: ENTRY, RESOLVED_MODULES: record } },
        (error) => resolve(error ? error.code : 0),
      ),
    );
    return { exit, resolved: (await readFile(record, 'utf8')).split('\n') };
  } finally {
    await rm(record, { force: true });
  }
}

/** What only the domain services may load: TypeORM alone is 30 MB of resident memory. */
const SERVICE_ONLY = /\/node_modules\/(typeorm|pg)\//;

/** The service-only packages among `urls`, once each. */
function serviceOnlyPackages(urls: readonly string[]): string[] {
  return [...new Set(urls.flatMap((url) => SERVICE_ONLY.exec(url)?.[1] ?? []))].sort();
}

describe("the gateway's module graph", () => {
  it('loads neither TypeORM nor the Postgres driver', async () => {
    // Without NATS_URL and REDIS_URL the start is refused for its configuration, which main.ts
    // checks first: by then ESM has loaded and linked every static import, and nothing is open.
    const { NATS_URL: _nats, REDIS_URL: _redis, NODE_OPTIONS: _jest, ...env } = process.env;
    const { exit, resolved } = await loadEntry(env);
    expect(exit).toBe(CONFIG_EXIT_CODE);
    // The whole gateway was there: its composition, the API and the site.
    expect(resolved).toEqual(
      expect.arrayContaining([expect.stringMatching(/\/auth-gateway\/dist\/gateway\.js$/)]),
    );
    expect(resolved.length).toBeGreaterThan(1_000);
    expect(serviceOnlyPackages(resolved)).toEqual([]);
  });
});
