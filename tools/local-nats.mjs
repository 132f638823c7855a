// The NATS of `npm run start:distributed` when NATS_URL is not set: a nats-server of its own,
// started with the apps' authorization (k8s/nats-authorization.conf), as production runs it. Each
// app connects as its own user (the launcher gives each its password), and a client without
// credentials is refused. Its JetStream store and the passwords are kept in <data dir>/nats
// (TOWNHALL_DATA_DIR, default ./.townhall), so a restart keeps the stream; a second launcher on
// the same data folder joins the running server as replicas of every app.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { BUS_APPS } from '@townhall/contracts';
import { natsPasswordVariable, newNatsPassword } from '@townhall/platform';
import { ROOT } from './launcher.mjs';

const CONF = join(ROOT, 'k8s', 'nats-authorization.conf');
const START_TIMEOUT_MS = 15_000;

/**
 * Starts the local nats-server on 127.0.0.1:`port`, or joins the one another launcher started on
 * the same data folder. Resolves with its URL, nats-server's password variables (the launcher
 * turns each into its app's NATS_USER and NATS_PASSWORD) and stop() (a no-op for one joined).
 */
export async function startLocalNats({ dataDir, port }) {
  const folder = join(dataDir, 'nats');
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const passwords = readOrMakePasswords(join(folder, 'passwords.json'));
  const url = `nats://127.0.0.1:${port}`;
  const serverFile = join(folder, 'server.json');
  const running = existsSync(serverFile) ? JSON.parse(readFileSync(serverFile, 'utf8')) : undefined;
  if (await accepts(port)) {
    if (running?.port === port && isAlive(running.pid)) {
      console.log(`NATS: joining the one another launcher started at ${url} (pid ${running.pid})`);
      return { url, env: passwords, stop: async () => undefined };
    }
    throw new Error(
      `port ${port} (LOCAL_NATS_PORT) is in use by something else: stop it, set LOCAL_NATS_PORT, or set NATS_URL`,
    );
  }
  const child = spawn(
    'nats-server',
    ['-c', CONF, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(folder, 'jetstream')],
    { cwd: ROOT, env: { ...process.env, ...passwords }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const failed = new Promise((_, reject) => {
    child.once('error', (error) =>
      reject(
        new Error(
          `cannot run nats-server (${error.message}): install it (docs/development.md), or set NATS_URL`,
        ),
      ),
    );
    child.once('exit', (code) => reject(new Error(`nats-server exited with ${code}`)));
  });
  failed.catch(() => undefined);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await accepts(port))) {
    if (Date.now() > deadline)
      throw new Error(`nats-server did not listen on ${port} in ${START_TIMEOUT_MS} ms`);
    await Promise.race([failed, new Promise((resolve) => setTimeout(resolve, 100))]);
  }
  writeFileSync(serverFile, JSON.stringify({ pid: child.pid, port }));
  console.log(
    `NATS: a nats-server of its own at ${url}, each app its own user (k8s/nats-authorization.conf)`,
  );
  return {
    url,
    env: passwords,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // SIGTERM lets JetStream flush its store.
      child.kill('SIGTERM');
      const forced = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(forced);
    },
  };
}

/** Each app's password, made once per data folder and kept readable by its owner only. */
function readOrMakePasswords(file) {
  const kept = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const passwords = Object.fromEntries(
    BUS_APPS.map((app) => {
      const variable = natsPasswordVariable(app);
      return [variable, kept[variable] ?? newNatsPassword()];
    }),
  );
  writeFileSync(file, JSON.stringify(passwords, null, 2), { mode: 0o600 });
  chmodSync(file, 0o600);
  return passwords;
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function accepts(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
