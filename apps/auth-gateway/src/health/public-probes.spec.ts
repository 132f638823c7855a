import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { CachedReadiness } from './cached-readiness.js';
import { publicProbesServer } from './public-probes.js';

describe('the public probes, answered by the server before Fastify', () => {
  let server: Server;
  let base: string;
  let checks = 0;
  const toFastify: string[] = [];
  const readiness = new CachedReadiness({
    redis: async () => void (checks += 1),
  });

  beforeAll(async () => {
    server = publicProbesServer(readiness)(
      (request, response) => {
        toFastify.push(`${request.method} ${request.url}`);
        response.end('fastify');
      },
      { keepAliveTimeout: 5_000, requestTimeout: 10_000, connectionTimeout: 60_000 },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers /healthz and /readyz whatever their query, ok or not only, and hands every other request on', async () => {
    const answers = await Promise.all(
      ['/healthz', '/readyz', '/readyz?x=1', '/readyz?', '/events', '/readyz/x', '/healthzz'].map(
        async (path) => {
          const response = await fetch(base + path);
          return [path, response.status, await response.text()];
        },
      ),
    );
    expect(answers).toEqual([
      ['/healthz', 200, '{"status":"ok"}'],
      ['/readyz', 200, '{"ready":true}'],
      ['/readyz?x=1', 200, '{"ready":true}'],
      ['/readyz?', 200, '{"ready":true}'],
      ['/events', 200, 'fastify'],
      ['/readyz/x', 200, 'fastify'],
      ['/healthzz', 200, 'fastify'],
    ]);
    expect(toFastify.sort()).toEqual(['GET /events', 'GET /healthzz', 'GET /readyz/x']);
    // Three /readyz at once, one run of the checks.
    expect(checks).toBe(1);
    // Not a GET: Fastify's (its routes answer a HEAD or refuse the method).
    await fetch(`${base}/readyz`, { method: 'POST' });
    expect(toFastify).toContain('POST /readyz');
    expect(server.keepAliveTimeout).toBe(5_000);
    expect(server.requestTimeout).toBe(10_000);
    expect(server.timeout).toBe(60_000);
  });

  it('says not ready, naming nothing, once a check fails or the gateway is closing', async () => {
    const failed = new CachedReadiness({
      redis: async () => {
        throw new Error('ECONNREFUSED 127.0.0.1:6379');
      },
    });
    const other = publicProbesServer(failed)((_request, response) => response.end(), {});
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(other.address() as AddressInfo).port}/readyz`);
      expect([response.status, await response.text()]).toEqual([503, '{"ready":false}']);
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
    readiness.close();
    const closing = await fetch(`${base}/readyz`);
    expect([closing.status, await closing.text()]).toEqual([503, '{"ready":false}']);
    expect(await (await fetch(`${base}/healthz`)).text()).toBe('{"status":"ok"}');
  });
});
