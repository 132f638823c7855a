import {
  createServer,
  request as forward,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';

/** What a LostAnswerProxy judges a request by. */
export interface ProxiedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingMessage['headers'];
}

/** An x402 paying request: the one carrying a payment (X-PAYMENT, or PAYMENT-SIGNATURE in v2). */
export const isPaidRequest = (request: ProxiedRequest) =>
  request.headers['x-payment'] !== undefined || request.headers['payment-signature'] !== undefined;

/**
 * An HTTP proxy on 127.0.0.1 in front of a server (Townhall, a chain's JSON-RPC) that loses or
 * holds answers:
 * - a request `loses` picks is forwarded and its whole answer read (so what it did is done: a
 *   payment is taken), then the client's connection is reset (TCP RST) instead of answering. What a
 *   buyer sees when the network drops the reply to a payment that went through;
 * - while `hold()` is in force, every request waits before it is forwarded, until its release: a
 *   backend that stalls, so that a test decides what the client can have seen by then.
 * Every other request passes as it is, streams too.
 */
export class LostAnswerProxy {
  /** Which requests lose their answer; change it at any time (default: none). */
  loses: (request: ProxiedRequest) => boolean = () => false;
  /** The requests whose answer was lost, in order: `METHOD /path -> status`. */
  readonly lost: string[] = [];
  private readonly server: Server;
  private readonly upstream: URL;
  private held: Promise<void> | undefined;

  private constructor(upstream: string) {
    this.upstream = new URL(upstream);
    this.server = createServer((client, reply) => {
      if (this.held) void this.held.then(() => this.pass(client, reply));
      else this.pass(client, reply);
    });
  }

  /** Holds every request from now on, until the function returned is called (idempotent). */
  hold(): () => void {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    this.held = held;
    return () => {
      if (this.held === held) this.held = undefined;
      release();
    };
  }

  private pass(client: IncomingMessage, reply: ServerResponse): void {
    const picked = this.loses({
      method: client.method ?? 'GET',
      url: client.url ?? '/',
      headers: client.headers,
    });
    const sent = forward(
      new URL(client.url ?? '/', this.upstream),
      { method: client.method, headers: { ...client.headers, host: this.upstream.host } },
      (answer) => {
        if (!picked) {
          reply.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(reply);
          return;
        }
        answer.resume();
        answer.once('end', () => {
          this.lost.push(`${client.method} ${client.url} -> ${answer.statusCode}`);
          client.socket.resetAndDestroy();
        });
      },
    );
    sent.once('error', () => client.socket.destroy());
    client.pipe(sent);
  }

  /** Starts one in front of `upstream` (a base URL, e.g. a Townhall's or an RPC's). */
  static async start(upstream: string): Promise<LostAnswerProxy> {
    const proxy = new LostAnswerProxy(upstream);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    const address = this.server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
