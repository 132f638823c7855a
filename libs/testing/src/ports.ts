import { createServer } from 'node:net';

/**
 * Every port this process has handed out. The kernel may give a port that was just closed to the
 * next `listen(0)`: without this, a topology could hand the gateway's port to a service's probe
 * server too, whose `/readyz` would then answer for a gateway that never bound (seen in CI: every
 * request of a suite got the probe's 404).
 */
const handedOut = new Set<number>();

/**
 * `TOWNHALL_TEST_PORTS=<first>-<last>`: hand out ports of that range only, for a test run beside
 * another (CI runs the package install test beside the end-to-end tier). Two processes that both
 * take the kernel's next free port can be given the same one, each between the moment it checks the
 * port and the moment its app binds it (EADDRINUSE); a range below the kernel's own (32768 and up on
 * Linux) is one that the other run's ports never come from.
 */
const RANGE = portRange(process.env['TOWNHALL_TEST_PORTS']);

function portRange(value: string | undefined): { first: number; last: number } | undefined {
  if (!value) return undefined;
  const match = /^(\d+)-(\d+)$/.exec(value);
  const [first, last] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
  if (first < 1024 || last > 65535 || first > last)
    throw new Error(`TOWNHALL_TEST_PORTS must be <first>-<last> within 1024-65535, not ${value}`);
  return { first, last };
}

/** A TCP port that was free a moment ago on 127.0.0.1 and that this process never handed out. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await unusedPort(RANGE ? randomIn(RANGE) : 0).catch((error: unknown) => {
      if (RANGE && (error as NodeJS.ErrnoException).code === 'EADDRINUSE') return undefined;
      throw error;
    });
    if (port === undefined || handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error('no fresh port after 100 tries');
}

function randomIn({ first, last }: { first: number; last: number }): number {
  return first + Math.floor(Math.random() * (last - first + 1));
}

/** Listens on `port` (0: the kernel's choice) and closes again; resolves with the port. */
async function unusedPort(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Probes every 100 ms until `probe` gives a value. The default ceiling is for what must happen
 * eventually, not a claim of how soon: a test that claims a bound passes its own `timeoutMs`.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `Timed out waiting for ${what}${lastError instanceof Error ? `: ${lastError.message}` : ''}`,
  );
}
