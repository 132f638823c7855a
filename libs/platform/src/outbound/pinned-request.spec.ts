import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getPinned, postPinned } from './pinned-request.js';

describe('postPinned', () => {
  let server: Server;
  let port: number;
  const seen: Array<{ host: string | undefined; body: string; headers: IncomingMessage['headers'] }> = [];
  let answer: (response: ServerResponse) => void = (response) => response.end();

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

describe('getPinned', () => {
  let server: Server;
  let port: number;
  const seen: Array<{ method: string | undefined; url: string | undefined; host: string | undefined }> = [];
  let answer: (response: ServerResponse) => void = (response) => response.end();
  /** Sockets the server saw closed (a body cut short must end its connection). */
  let closed = 0;

  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push({ method: request.method, url: request.url, host: request.headers.host });
      answer(response);
    });
    server.on('connection', (socket) => socket.on('close', () => (closed += 1)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const destination = (path = '/.well-known/keys?x=1') => ({
    url: new URL(`http://directory.invalid:${port}${path}`),
    hostname: 'directory.invalid',
    address: { address: '127.0.0.1', family: 4 as const },
  });
  const limits = { timeoutMs: 2_000, maxBytes: 1_024 };

  it('reads a 2xx body from the pinned address, with its Content-Type and Cache-Control', async () => {
    answer = (response) =>
      response
        .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' })
        .end('{"keys":[]}');
    const outcome = await getPinned(destination(), { accept: 'application/json' }, limits);
    expect(outcome).toEqual({
      status: 200,
      body: new Uint8Array(Buffer.from('{"keys":[]}')),
      contentType: 'application/json',
      cacheControl: 'max-age=300',
      error: null,
    });
    expect(outcome.body).not.toBeInstanceOf(Buffer);
    expect(seen.at(-1)).toEqual({
      method: 'GET',
      url: '/.well-known/keys?x=1',
      host: `directory.invalid:${port}`,
    });
  });

  it('takes a body of exactly maxBytes, refuses one larger (declared or streamed) and ends its connection', async () => {
    answer = (response) => response.writeHead(200).end('x'.repeat(1_024));
    expect((await getPinned(destination(), {}, limits)).body?.length).toBe(1_024);

    answer = (response) => response.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5_000));
    expect(await getPinned(destination(), {}, limits)).toMatchObject({
      status: 200,
      body: null,
      error: 'body over 1024 bytes',
    });

    // No Content-Length: chunks keep coming, and the connection is ended once past the limit.
    const closedBefore = closed;
    let writing: NodeJS.Timeout | undefined;
    answer = (response) => {
      response.writeHead(200);
      writing = setInterval(() => response.write('y'.repeat(512)), 5);
    };
    expect(await getPinned(destination(), {}, limits)).toMatchObject({
      status: 200,
      body: null,
      error: 'body over 1024 bytes',
    });
    await waitUntil(() => closed > closedBefore);
    clearInterval(writing);
  });

  it('gives up on an answer that does not end in time, its head or its body', async () => {
    answer = () => undefined; // never answers
    const started = Date.now();
    expect(await getPinned(destination(), {}, { ...limits, timeoutMs: 300 })).toEqual({
      status: null,
      body: null,
      contentType: null,
      cacheControl: null,
      error: 'no whole answer within 300 ms',
    });
    expect(Date.now() - started).toBeLessThan(2_000);

    answer = (response) => response.writeHead(200, { 'content-type': 'application/json' }).write('{"ke');
    expect(await getPinned(destination(), {}, { ...limits, timeoutMs: 300 })).toMatchObject({
      status: 200,
      body: null,
      error: 'no whole answer within 300 ms',
    });
  });

  it('follows no redirect, and reads no body of a status that is not 2xx', async () => {
    const before = seen.length;
    answer = (response) => response.writeHead(302, { location: `http://127.0.0.1:${port}/elsewhere` }).end();
    expect(await getPinned(destination(), {}, limits)).toMatchObject({
      status: 302,
      body: null,
      error: 'HTTP 302',
    });
    expect(seen.length).toBe(before + 1);
    answer = (response) => response.writeHead(404).end('not here');
    expect(await getPinned(destination(), {}, limits)).toMatchObject({
      status: 404,
      body: null,
      error: 'HTTP 404',
    });
  });

  it('reports a refused connection, and one cut off mid-body', async () => {
    const nowhere = { ...destination(), url: new URL('http://directory.invalid:1/') };
    expect(await getPinned(nowhere, {}, limits)).toMatchObject({
      status: null,
      body: null,
      error: expect.stringMatching(/ECONNREFUSED/),
    });

    answer = (response) => {
      response.writeHead(200, { 'content-length': '100' }).write('{"keys":');
      setTimeout(() => response.socket?.destroy(), 20);
    };
    expect(await getPinned(destination(), {}, limits)).toMatchObject({
      status: 200,
      body: null,
      error: 'ECONNRESET: aborted',
    });
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
