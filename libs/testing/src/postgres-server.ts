import { execFile, execFileSync } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './ports.js';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of the test's own (initdb in a temp folder, on a free port of 127.0.0.1),
 * for tests that restart the database or terminate its backends under load. Controlled with
 * pg_ctl, which signals the postmaster by the pid in its own pid file, never by name. As root
 * (CI), the server runs as the `postgres` user, since PostgreSQL refuses to run as root.
 */
export class PrivatePostgresServer {
  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly owner: { uid: number; gid: number } | undefined,
  ) {}

  static async start(): Promise<PrivatePostgresServer> {
    const dir = await mkdtemp(join(tmpdir(), 'townhall-pg-'));
    const owner = process.getuid?.() === 0 ? userIds('postgres') : undefined;
    if (owner) await chown(dir, owner.uid, owner.gid);
    const server = new PrivatePostgresServer(await freePort(), dir, owner);
    await server.command('initdb', [
      '-D',
      server.dataDir,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
    await server.pgCtl('start');
    return server;
  }

  /** The administrator's URL (database `postgres`); createTestDatabase takes it. */
  get adminUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private get dataDir(): string {
    return join(this.dir, 'data');
  }

  /** `pg_ctl restart -m fast`: every session is ended, the server stops and starts again. */
  async restart(): Promise<void> {
    await this.pgCtl('restart', ['-m', 'fast']);
  }

  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.pgCtl('stop', ['-m', mode]);
  }

  async startAgain(): Promise<void> {
    await this.pgCtl('start');
  }

  /** pg_terminate_backend of every session on `database` but the caller's own; how many it ended. */
  async terminateBackends(database: string): Promise<number> {
    const client = new pg.Client({ connectionString: this.adminUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ ended: number }>(
        `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS ended
           FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
        [database],
      );
      return rows[0]?.ended ?? 0;
    } finally {
      await client.end();
    }
  }

  async destroy(): Promise<void> {
    await this.pgCtl('stop', ['-m', 'immediate']).catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }

  private pgCtl(action: string, extra: string[] = []): Promise<void> {
    const options = [
      `-p ${this.port}`,
      '-c listen_addresses=127.0.0.1',
      `-c unix_socket_directories=${this.dir}`,
      // A throwaway cluster: durability is not what these tests are about, speed is.
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=200',
    ].join(' ');
    const args = ['-D', this.dataDir, '-w', '-t', '30', '-l', join(this.dir, 'server.log'), ...extra];
    return this.command('pg_ctl', [action, ...args, ...(action === 'stop' ? [] : ['-o', options])]);
  }

  private async command(name: string, args: string[]): Promise<void> {
    await run(join(binDir(), name), args, { ...(this.owner ?? {}), cwd: this.dir });
  }
}

let bin: string | undefined;
/** Where this machine's PostgreSQL server programs are (pg_config --bindir). */
function binDir(): string {
  return (bin ??= execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim());
}

function userIds(name: string): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}
