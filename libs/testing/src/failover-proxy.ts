import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * What a Kubernetes Service does for the tests that kill a gateway replica: a TCP proxy on
 * 127.0.0.1 that sends each new connection to the first upstream port that accepts it. When a
 * replica dies, its connections drop and the clients' reconnects reach the next one.
 */
export class FailoverProxy {
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;

  private constructor(private readonly upstreamPorts: number[]) {
    this.server = createServer((client) => this.accept(client));
  }

  static async start(upstreamPorts: number[]): Promise<FailoverProxy> {
    const proxy = new FailoverProxy(upstreamPorts);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    const address = this.server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    this.track(client);
    client.pause();
    const tryUpstream = (index: number): void => {
      const port = this.upstreamPorts[index];
      if (port === undefined) {
        client.destroy();
        return;
      }
      const upstream = createConnection({ host: '127.0.0.1', port });
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        this.track(upstream);
        // Either side gone ends the other: a dead replica's clients see their connection drop.
        upstream.once('close', () => client.destroy());
        client.once('close', () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
      upstream.on('error', () => {
        if (!connected) tryUpstream(index + 1);
      });
    };
    tryUpstream(0);
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => this.sockets.delete(socket));
  }
}
