import { connect, type Socket } from 'node:net';

/** A backend message: its type letter and its body. */
export interface BackendMessage {
  type: string;
  body: Buffer;
}

/**
 * Frontend messages written by hand (protocol 3.0), so tests can send what the pg driver never
 * does: a Parse and its Bind in different turns, half a message, one byte per write.
 */
export const frontend = {
  startup(): Buffer {
    const parameters = Buffer.from('user\0postgres\0database\0postgres\0\0');
    const packet = Buffer.alloc(8 + parameters.length);
    packet.writeInt32BE(packet.length, 0);
    packet.writeInt32BE(196_608, 4); // protocol 3.0
    parameters.copy(packet, 8);
    return packet;
  },
  parse: (name: string, sql: string): Buffer => message('P', cstring(name), cstring(sql), int16(0)),
  bind(portal: string, statement: string, parameters: string[] = []): Buffer {
    const values = parameters.map((value) => {
      const bytes = Buffer.from(value);
      return Buffer.concat([int32(bytes.length), bytes]);
    });
    return message(
      'B',
      cstring(portal),
      cstring(statement),
      int16(0),
      int16(values.length),
      ...values,
      int16(0),
    );
  },
  describe: (kind: 'S' | 'P', name: string): Buffer => message('D', Buffer.from(kind), cstring(name)),
  execute: (portal = ''): Buffer => message('E', cstring(portal), int32(0)),
  close: (kind: 'S' | 'P', name: string): Buffer => message('C', Buffer.from(kind), cstring(name)),
  sync: (): Buffer => message('S'),
  query: (sql: string): Buffer => message('Q', cstring(sql)),
  terminate: (): Buffer => message('X'),
  /** An unnamed statement run whole, as pg sends it for `query(text, values)`. */
  statement: (sql: string, parameters: string[]): Buffer =>
    Buffer.concat([
      frontend.parse('', sql),
      frontend.bind('', '', parameters),
      frontend.describe('P', ''),
      frontend.execute(),
      frontend.sync(),
    ]),
};

/** A client speaking the wire protocol over a raw socket. */
export class WireClient {
  readonly closed: Promise<void>;
  /** The server ended its side of the connection. */
  readonly serverEnded: Promise<void>;
  private buffer = Buffer.alloc(0);
  private readonly inbox: BackendMessage[] = [];
  private wake: (() => void) | undefined;
  private ended = false;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => undefined); // a test that cuts the connection expects it
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.ended = true;
        this.wake?.();
        resolve();
      }),
    );
    this.serverEnded = new Promise((resolve) => socket.once('end', () => resolve()));
  }

  /**
   * Connects and completes the startup. `byteByByte` writes the startup packet one byte at a
   * time; `halfOpen` keeps this side open when the server ends its side.
   */
  static async connect(
    port: number,
    { byteByByte = false, halfOpen = false }: { byteByByte?: boolean; halfOpen?: boolean } = {},
  ): Promise<WireClient> {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: halfOpen });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    socket.setNoDelay(true);
    const client = new WireClient(socket);
    if (byteByByte) await client.writeByteByByte(frontend.startup());
    else client.write(frontend.startup());
    await client.untilReady();
    return client;
  }

  write(...messages: Buffer[]): void {
    this.socket.write(Buffer.concat(messages));
  }

  /** One write per byte, each in its own turn of the event loop so that each leaves alone. */
  async writeByteByByte(bytes: Buffer): Promise<void> {
    for (const byte of bytes) {
      this.socket.write(Buffer.from([byte]));
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** The messages up to and including the next one of `type`. */
  async until(type: string): Promise<BackendMessage[]> {
    const messages: BackendMessage[] = [];
    for (;;) {
      const next = await this.next();
      messages.push(next);
      if (next.type === type) return messages;
    }
  }

  /** The messages up to and including the next ReadyForQuery. */
  untilReady(): Promise<BackendMessage[]> {
    return this.until('Z');
  }

  /** Cuts the connection without a word, as a crashed client does. */
  vanish(): Promise<void> {
    this.socket.destroy();
    return this.closed;
  }

  private async next(): Promise<BackendMessage> {
    while (this.inbox.length === 0) {
      if (this.ended) throw new Error('connection closed');
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    return this.inbox.shift()!;
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length >= 5) {
      const length = 1 + this.buffer.readInt32BE(1);
      if (this.buffer.length < length) break;
      this.inbox.push({ type: String.fromCharCode(this.buffer[0]!), body: this.buffer.subarray(5, length) });
      this.buffer = this.buffer.subarray(length);
    }
    this.wake?.();
  }
}

/** The text of each column of each DataRow. */
export function rowsOf(messages: BackendMessage[]): Array<Array<string | null>> {
  return messages
    .filter((message) => message.type === 'D')
    .map(({ body }) => {
      const fields: Array<string | null> = [];
      let offset = 2;
      for (let column = 0; column < body.readInt16BE(0); column += 1) {
        const length = body.readInt32BE(offset);
        offset += 4;
        fields.push(length < 0 ? null : body.subarray(offset, offset + length).toString());
        offset += Math.max(length, 0);
      }
      return fields;
    });
}

/** The message text of the first ErrorResponse, if there is one. */
export function errorOf(messages: BackendMessage[]): string | undefined {
  const error = messages.find((message) => message.type === 'E');
  if (!error) return undefined;
  const field = error.body
    .toString()
    .split('\0')
    .find((part) => part.startsWith('M'));
  return field?.slice(1);
}

/** The status of the last ReadyForQuery: I idle, T in a transaction, E in a failed one. */
export function statusOf(messages: BackendMessage[]): string | undefined {
  const ready = messages.filter((message) => message.type === 'Z').at(-1);
  return ready ? String.fromCharCode(ready.body[0]!) : undefined;
}

function message(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

function cstring(text: string): Buffer {
  return Buffer.from(`${text}\0`);
}

function int16(value: number): Buffer {
  const bytes = Buffer.alloc(2);
  bytes.writeInt16BE(value);
  return bytes;
}

function int32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32BE(value);
  return bytes;
}
