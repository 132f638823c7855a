import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postPinned } from './pinned-post.js';

describe('postPinned', () => {
  let server: Server;
  let port: number;
  const seen: Array<{ host: string | undefined; body: string; headers: IncomingMessage['headers'] }> = [];
  let answer: (response: import('node:http').ServerResponse) => void = (response) => response.end();

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        seen.push({
          host: request.headers.host,
          body: Buffer.concat(chunks).toString('utf8'),
          headers: request.headers,
        });
        answer(response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  // A name that resolves nowhere: only the pinned address can be reached.
  const destination = () => ({
    url: new URL(`http://receiver.invalid:${port}/hooks/in?x=1`),
    hostname: 'receiver.invalid',
    address: { address: '127.0.0.1', family: 4 as const },
  });

  it('connects to the pinned address, keeping the URL host in the Host header and the body as given', async () => {
    answer = (response) => response.writeHead(204).end();
    const body = '{"a": 1, "text":"Grüße"}';
    expect(await postPinned(destination(), { 'webhook-id': 'x' }, body, 2_000)).toEqual({
      status: 204,
      error: null,
    });
    const last = seen.at(-1)!;
    expect(last.host).toBe(`receiver.invalid:${port}`);
    expect(last.body).toBe(body);
    expect(last.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': 'x' });
  });

  it('reports a non-2xx by its status only, never its body, a 3xx included (redirects are not followed)', async () => {
    answer = (response) => response.writeHead(500).end('x'.repeat(10_000));
    expect(await postPinned(destination(), {}, '{}', 2_000)).toEqual({ status: 500, error: 'HTTP 500' });
    answer = (response) => response.writeHead(302, { location: 'http://127.0.0.1:1/' }).end();
    expect(await postPinned(destination(), {}, '{}', 2_000)).toEqual({ status: 302, error: 'HTTP 302' });
  });

  it('gives up on a receiver that does not answer in time, and reports a refused connection', async () => {
    answer = () => undefined; // never answers
    const started = Date.now();
    expect(await postPinned(destination(), {}, '{}', 300)).toEqual({
      status: null,
      error: 'no 2xx within 300 ms',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    const nowhere = { ...destination(), url: new URL('http://receiver.invalid:1/') };
    expect((await postPinned(nowhere, {}, '{}', 2_000)).error).toMatch(/ECONNREFUSED/);
  });
});
