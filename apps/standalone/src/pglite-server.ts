import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const READY_FOR_QUERY = 0x5a; // 'Z'
const TERMINATE = 0x58; // 'X'
const IDLE = 0x49; // 'I': ReadyForQuery outside any transaction

/** One client connection: its unparsed bytes and the whole protocol messages waiting their turn. */
class Connection {
  buffer = Buffer.alloc(0);
  started = false;
  closed = false;
  readonly pending: Buffer[] = [];
  constructor(readonly socket: Socket) {}
}

/**
 * The Postgres wire protocol on a loopback port, in front of one PGlite. PGlite is a single
 * session, so the connections take turns: a connection that starts talking owns the session
 * until PGlite answers ReadyForQuery with status idle, that is, until its statement (simple, or
 * the whole Parse/Bind/Execute/Sync of the extended protocol) or its transaction is over. Only
 * then may another connection's messages run. (The socket server of @electric-sql/pglite-socket
 * switches connections between the messages of one extended-protocol statement outside explicit
 * transactions, so one connection's Bind can meet another's Parse.)
 *
 * Session state is shared: named prepared statements must not be prepared by two connections,
 * which is why standalone mode gives each service a pool of one connection.
 */
export class PGliteServer {
  private readonly connections = new Set<Connection>();
  private readonly turns: Connection[] = [];
  private owner: Connection | undefined;
  private pumping = false;
  private server: Server | undefined;

  constructor(private readonly db: PGlite) {}

  /** Listens on 127.0.0.1 (port 0: any free port); returns the port. */
  async listen(port = 0): Promise<number> {
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    return address.port;
  }

  async close(): Promise<void> {
    for (const connection of this.connections) connection.socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    // Let the statement in flight finish before PGlite is closed.
    while (this.pumping) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    const connection = new Connection(socket);
    this.connections.add(connection);
    socket.on('data', (chunk: Buffer) => this.receive(connection, chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.disconnect(connection));
  }

  private receive(connection: Connection, chunk: Buffer): void {
    connection.buffer = Buffer.concat([connection.buffer, chunk]);
    for (;;) {
      const { buffer } = connection;
      if (!connection.started) {
        // Startup phase: length-prefixed packets without a type byte.
        if (buffer.length < 8) break;
        const length = buffer.readInt32BE(0);
        const code = buffer.readInt32BE(4);
        if (length === 8 && (code === SSL_REQUEST || code === GSSENC_REQUEST)) {
          connection.socket.write('N'); // no encryption on loopback
          connection.buffer = buffer.subarray(8);
          continue;
        }
        if (length === 16 && code === CANCEL_REQUEST) {
          connection.socket.end(); // cancellation is not supported: the statement runs to its end
          return;
        }
        if (buffer.length < length) break;
        connection.started = true;
        this.enqueue(connection, buffer.subarray(0, length));
        connection.buffer = buffer.subarray(length);
        continue;
      }
      if (buffer.length < 5) break;
      const length = 1 + buffer.readInt32BE(1);
      if (buffer.length < length) break;
      const message = buffer.subarray(0, length);
      connection.buffer = buffer.subarray(length);
      if (message[0] === TERMINATE) {
        connection.socket.end();
        return;
      }
      this.enqueue(connection, message);
    }
  }

  private enqueue(connection: Connection, message: Buffer): void {
    connection.pending.push(Buffer.from(message));
    if (connection !== this.owner && !this.turns.includes(connection)) this.turns.push(connection);
    void this.pump();
  }

  private disconnect(connection: Connection): void {
    connection.closed = true;
    connection.pending.length = 0;
    this.connections.delete(connection);
    const index = this.turns.indexOf(connection);
    if (index >= 0) this.turns.splice(index, 1);
    void this.pump();
  }

  /** Runs waiting messages one at a time, keeping the session with its owner until it is idle. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (;;) {
        if (this.owner?.closed) {
          // A client that went away mid-transaction leaves nothing behind.
          if (this.db.isInTransaction()) await this.db.exec('ROLLBACK').catch(() => undefined);
          this.owner = undefined;
        }
        const connection = this.owner ?? this.turns.shift();
        if (!connection) return;
        const message = connection.pending.shift();
        if (!message) {
          // The owner is between messages (e.g. inside a transaction): wait for it.
          if (connection === this.owner) return;
          continue;
        }
        this.owner = connection;
        const output: Uint8Array[] = [];
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(message, {
              onRawData: (data: Uint8Array) => {
                output.push(data);
                if (!connection.closed) connection.socket.write(data);
              },
            }),
          );
        } catch {
          connection.socket.destroy();
          connection.closed = true;
          continue;
        }
        if (readyStatus(output) === IDLE) {
          this.owner = undefined;
          if (connection.pending.length > 0) this.turns.push(connection);
        }
      }
    } finally {
      this.pumping = false;
    }
  }
}

/** The status byte of the last ReadyForQuery in a response, if there is one. */
function readyStatus(chunks: Uint8Array[]): number | undefined {
  const data = Buffer.concat(chunks);
  let status: number | undefined;
  for (let offset = 0; offset + 5 <= data.length;) {
    const type = data[offset]!;
    const length = data.readInt32BE(offset + 1);
    if (type === READY_FOR_QUERY && offset + 5 < data.length) status = data[offset + 5];
    offset += 1 + length;
  }
  return status;
}
