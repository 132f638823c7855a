import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { jest } from '@jest/globals';
import { SseConnection, type SseCloseReason } from './sse-connection.js';

/** Just enough of a ServerResponse: `accepting` decides whether the socket takes more. */
class FakeResponse extends EventEmitter {
  readonly chunks: string[] = [];
  readonly headers: Record<string, unknown> = {};
  status = 0;
  accepting = true;
  ended = false;
  destroyed = false;
  socket = {
    destroyed: false,
    idleTimeout: -1,
    setTimeout(ms: number) {
      this.idleTimeout = ms;
    },
  };

  setHeader(name: string, value: unknown): void {
    this.headers[name] = value;
  }
  writeHead(status: number): void {
    this.status = status;
  }
  write(chunk: string): boolean {
    this.chunks.push(chunk);
    return this.accepting;
  }
  end(): void {
    this.ended = true;
    this.emit('close');
  }
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
  drain(): void {
    this.accepting = true;
    this.emit('drain');
  }
}

function open(bufferLimit = 3, heartbeatMs = 1_000) {
  const response = new FakeResponse();
  const connection = new SseConnection(response as unknown as ServerResponse, {
    bufferLimit,
    heartbeatMs,
    retryMs: 2_000,
  });
  const closes: SseCloseReason[] = [];
  connection.onClose((reason) => closes.push(reason));
  connection.open({ 'x-request-id': 'r1' });
  return { response, connection, closes };
}

describe('SseConnection', () => {
  afterEach(() => jest.useRealTimers());

  it('starts an event stream with the retry delay, out of the server idle timeout', () => {
    const { response } = open();
    expect(response.socket.idleTimeout).toBe(0);
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      'content-type': 'text/event-stream; charset=utf-8',
      'x-request-id': 'r1',
      'cache-control': 'no-cache, no-transform',
    });
    expect(response.chunks).toEqual(['retry: 2000\n\n']);
  });

  it('queues while the socket is backed up and flushes in order on drain', async () => {
    const { response, connection } = open();
    response.accepting = false;
    connection.send('a');
    connection.send('b');
    connection.send('c');
    const drained = connection.drained();
    expect(response.chunks).toEqual(['retry: 2000\n\n', 'a']);
    response.drain();
    await drained;
    expect(response.chunks).toEqual(['retry: 2000\n\n', 'a', 'b', 'c']);
    expect(connection.messagesSent).toBe(3);
  });

  it('disconnects a client whose buffer overflows, and sends it nothing more', () => {
    const { response, connection, closes } = open(2);
    response.accepting = false;
    for (const frame of ['a', 'b', 'c', 'd']) connection.send(frame);
    expect(response.destroyed).toBe(true);
    expect(closes).toEqual(['buffer_full']);
    connection.send('e');
    expect(response.chunks).toEqual(['retry: 2000\n\n', 'a']);
  });

  it('sends heartbeats while idle and cuts a client that has not drained for four of them', () => {
    jest.useFakeTimers();
    const { response, connection, closes } = open(10, 100);
    jest.advanceTimersByTime(250);
    expect(response.chunks.filter((c) => c === ': keep-alive\n\n')).toHaveLength(2);
    response.accepting = false;
    connection.send('a');
    jest.advanceTimersByTime(300); // beats at 300, 400, 500 find it backed up
    expect(closes).toEqual([]);
    jest.advanceTimersByTime(100);
    expect(closes).toEqual(['stalled']);
  });

  it('ends politely on shutdown, but cuts a client that is not reading', () => {
    const polite = open();
    polite.connection.end();
    expect(polite.response.ended).toBe(true);
    expect(polite.closes).toEqual(['server']);

    const stuck = open();
    stuck.response.accepting = false;
    stuck.connection.send('a');
    stuck.connection.end();
    expect(stuck.response.destroyed).toBe(true);
    expect(stuck.closes).toEqual(['server']);
  });

  it('reports a client that leaves', () => {
    const { response, closes } = open();
    response.emit('close');
    expect(closes).toEqual(['client']);
  });
});
