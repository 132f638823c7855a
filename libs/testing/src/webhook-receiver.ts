import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './ports.js';

/** One request a WebhookReceiver got, as it came (the body's exact bytes). */
export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body: what a receiver must verify, never a re-serialization of it. */
  body: Buffer;
  /** The status it was answered with. */
  status: number;
  receivedAt: number;
}

/** How the receiver answers its `n`-th request (1-based); 204 by default. */
export type WebhookAnswer = (request: ReceivedWebhook, n: number) => number | 'hang';

/**
 * A webhook receiver for tests: an HTTP server on 127.0.0.1 that records every request (headers
 * and the exact body bytes) and answers as told (a status, or never). Verifying what it got is
 * the test's business, with nothing but the service's public key.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly hanging = new Set<ServerResponse>();

  private readonly server: Server;
  private port = 0;

  private constructor(private answer: WebhookAnswer) {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () =>
        this.take(request.url ?? '/', request.headers, Buffer.concat(chunks), response),
      );
    });
  }

  static async start(answer: WebhookAnswer = () => 204): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(answer);
    await new Promise<void>((resolve, reject) => {
      receiver.server.once('error', reject);
      receiver.server.listen(0, '127.0.0.1', () => resolve());
    });
    receiver.port = (receiver.server.address() as AddressInfo).port;
    return receiver;
  }

  /** The receiver's URL, at `path`. */
  url(path = '/hooks'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Answers from now on as `answer` says (`n` keeps counting from the first request). */
  answerWith(answer: WebhookAnswer): void {
    this.answer = answer;
  }

  /** What arrived at `path`, or everywhere. */
  at(path?: string): ReceivedWebhook[] {
    return path === undefined ? [...this.received] : this.received.filter((request) => request.path === path);
  }

  /** Waits until `count` requests arrived at `path` (or anywhere); resolves with them. */
  async waitFor(count: number, path?: string, timeoutMs = 15_000): Promise<ReceivedWebhook[]> {
    return waitFor(
      `${count} webhook request(s)${path ? ` at ${path}` : ''}`,
      async () => (this.at(path).length >= count ? this.at(path) : undefined),
      timeoutMs,
    );
  }

  async stop(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private take(path: string, headers: IncomingHttpHeaders, body: Buffer, response: ServerResponse): void {
    const request: ReceivedWebhook = { path, headers, body, status: 0, receivedAt: Date.now() };
    this.received.push(request);
    const answer = this.answer(request, this.received.length);
    if (answer === 'hang') {
      this.hanging.add(response);
      return;
    }
    request.status = answer;
    response.writeHead(answer, { 'content-type': 'text/plain' }).end(answer >= 300 ? 'receiver says no' : '');
  }
}
