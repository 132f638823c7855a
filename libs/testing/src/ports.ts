import { createServer } from 'node:net';

/**
 * Every port this process has handed out. The kernel may give a port that was just closed to the
 * next `listen(0)`: without this, a topology could hand the gateway's port to a service's probe
 * server too, whose `/readyz` would then answer for a gateway that never bound (seen in CI: every
 * request of a suite got the probe's 404).
 */
const handedOut = new Set<number>();

/** A TCP port that was free a moment ago on 127.0.0.1 and that this process never handed out. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await unusedPort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error('no fresh port after 100 tries');
}

async function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
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
