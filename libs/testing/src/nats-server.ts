import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NATS_AUTHORIZATION_CONF, NatsUsers, type TestNats } from './nats-users.js';
import { freePort, waitFor } from './ports.js';

/**
 * A nats-server of the test's own (JetStream on, storage in a temp folder), on a free port, with
 * the apps' authorization of k8s/nats-authorization.conf (passwords made for it, `users`) unless
 * a library test asks for none. Stopped by its own pid, never by name; its storage survives a
 * stop, so a restart keeps the streams.
 */
export class PrivateNatsServer implements TestNats {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly storeDir: string,
    readonly users: NatsUsers | undefined,
  ) {}

  static async start({ authorization = true }: { authorization?: boolean } = {}): Promise<PrivateNatsServer> {
    const server = new PrivateNatsServer(
      await freePort(),
      await mkdtemp(join(tmpdir(), 'outbox-nats-')),
      authorization ? NatsUsers.generate() : undefined,
    );
    await server.restart();
    return server;
  }

  /** Its process id while it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async restart(): Promise<void> {
    if (this.child) throw new Error('nats-server is already running');
    const child = spawn(
      'nats-server',
      [
        ...(this.users ? ['-c', NATS_AUTHORIZATION_CONF] : []),
        ...['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir],
      ],
      { stdio: 'ignore', env: { ...process.env, ...this.users?.serverEnv() } },
    );
    this.child = child;
    await waitFor(`nats-server on ${this.port}`, async () => {
      if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}`);
      return (await accepts(this.port)) || undefined;
    });
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // SIGTERM lets JetStream flush its store; SIGKILL only if it hangs.
    child.kill('SIGTERM');
    const forced = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(forced);
  }

  async destroy(): Promise<void> {
    await this.stop();
    await rm(this.storeDir, { recursive: true, force: true });
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
