import type { ServerResponse } from 'node:http';
import { SSE_HEARTBEAT, sseRetry } from './sse-frame.js';

export interface SseConnectionOptions {
  /** Most messages that may wait for the socket; one more disconnects the client. */
  bufferLimit: number;
  heartbeatMs: number;
  /** The reconnection delay the client is told on connect. */
  retryMs: number;
}

/** Heartbeats in a row during which the socket did not drain before the client counts as stalled. */
const STALLED_AFTER_BEATS = 4;

export type SseCloseReason = 'client' | 'server' | 'buffer_full' | 'stalled' | 'error';

/**
 * One Server-Sent Events response, written on the raw Node response. Writing never blocks the
 * caller: while the socket is backed up, messages wait in a bounded queue, and a client that
 * lets the queue overflow (or does not read for several heartbeats) is disconnected, so a slow
 * reader never holds up the others nor grows the gateway's memory. It can resume with
 * Last-Event-ID.
 */
export class SseConnection {
  private readonly queue: string[] = [];
  private readonly drainWaiters: Array<() => void> = [];
  private readonly closeListeners: Array<(reason: SseCloseReason) => void> = [];
  private blocked = false;
  private stalledBeats = 0;
  private heartbeat: NodeJS.Timeout | undefined;
  private closeReason: SseCloseReason | undefined;
  private closed = false;
  private sent = 0;

  constructor(
    private readonly response: ServerResponse,
    private readonly options: SseConnectionOptions,
  ) {
    response.on('drain', () => this.flush());
    response.on('close', () => this.closedBy(this.closeReason ?? 'client'));
    // The client may have gone while the route was still checking the event: no 'close' will come.
    if (!response.socket || response.socket.destroyed) this.closedBy('client');
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Messages written so far (heartbeats excluded). */
  get messagesSent(): number {
    return this.sent;
  }

  /** Sends the headers and the reconnection delay, and starts the heartbeat. */
  open(headers: Record<string, string | number | string[] | undefined>): void {
    const all = {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // nginx and some ingress controllers buffer responses unless told not to.
      'x-accel-buffering': 'no',
    };
    for (const [name, value] of Object.entries(all))
      if (value !== undefined) this.response.setHeader(name, value);
    this.response.writeHead(200);
    // The server's idle timeout (HTTP_IDLE_TIMEOUT_MS) would cut a quiet stream between two
    // heartbeats; a stream has its own check for a client that stopped reading (below).
    this.response.socket?.setTimeout(0);
    this.write(sseRetry(this.options.retryMs));
    this.heartbeat = setInterval(() => this.beat(), this.options.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Queues one SSE message; disconnects the client if its buffer is full. */
  send(frame: string): void {
    if (this.closed) return;
    this.sent += 1;
    if (!this.blocked) {
      this.write(frame);
      return;
    }
    if (this.queue.length >= this.options.bufferLimit) {
      this.abort('buffer_full');
      return;
    }
    this.queue.push(frame);
  }

  /** Resolves once nothing waits for the socket (or the connection is closed): lets a replay go at the client's pace. */
  drained(): Promise<void> {
    if (!this.blocked || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** Calls `listener` once, when the connection closes for any reason. */
  onClose(listener: (reason: SseCloseReason) => void): void {
    if (this.closed) listener(this.closeReason ?? 'client');
    else this.closeListeners.push(listener);
  }

  /**
   * Ends the response politely (server shutdown): the client sees a normal end and reconnects
   * with Last-Event-ID. A client that is not reading could never receive the end, so it is cut.
   */
  end(): void {
    if (this.closed || this.closeReason) return;
    if (this.blocked) {
      this.abort('server');
      return;
    }
    this.closeReason = 'server';
    this.stopHeartbeat();
    this.response.end();
  }

  /** Cuts the connection at once. */
  abort(reason: SseCloseReason): void {
    if (this.closed) return;
    this.closeReason ??= reason;
    this.stopHeartbeat();
    this.response.destroy();
  }

  private write(chunk: string): void {
    if (!this.response.write(chunk)) this.blocked = true;
  }

  private flush(): void {
    this.blocked = false;
    this.stalledBeats = 0;
    while (!this.blocked && !this.closed) {
      const next = this.queue.shift();
      if (next === undefined) break;
      this.write(next);
    }
    if (!this.blocked) this.releaseDrainWaiters();
  }

  private beat(): void {
    if (this.blocked) {
      // A heartbeat would only queue behind what the client is not reading.
      this.stalledBeats += 1;
      if (this.stalledBeats >= STALLED_AFTER_BEATS) this.abort('stalled');
      return;
    }
    this.write(SSE_HEARTBEAT);
  }

  private closedBy(reason: SseCloseReason): void {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = reason;
    this.stopHeartbeat();
    this.queue.length = 0;
    this.releaseDrainWaiters();
    for (const listener of this.closeListeners.splice(0)) listener(reason);
  }

  private releaseDrainWaiters(): void {
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}
