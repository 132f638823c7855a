import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

// Startup packets (no type byte): requests a loopback server answers itself.
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const MAX_STARTUP_LENGTH = 10_000; // Postgres' own limit
// Frontend message types.
const PARSE = 0x50; // 'P'
const BIND = 0x42; // 'B'
const DESCRIBE = 0x44; // 'D'
const CLOSE = 0x43; // 'C'
const QUERY = 0x51; // 'Q'
const SYNC = 0x53; // 'S'
const TERMINATE = 0x58; // 'X'
const STATEMENT = 0x53; // 'S': Describe or Close of a prepared statement, not of a portal
// Backend message types.
const READY_FOR_QUERY = 0x5a; // 'Z'
const ERROR_RESPONSE = 0x45; // 'E'
const IDLE = 0x49; // 'I': ReadyForQuery outside any transaction
/** Postgres tells prepared statements apart by their first 63 bytes (NAMEDATALEN - 1). */
const STATEMENT_NAME_BYTES = 63;

/**
 * Numbers connections for their statement names. Counted per process, not per server: a
 * PGlite may outlive a server in front of it, and with it the statements of its connections.
 */
let connectionsOpened = 0;

/**
 * The Postgres wire protocol on a loopback port, in front of one PGlite. PGlite is a single
 * session, so the connections take turns: a connection that starts talking owns the session
 * until PGlite answers ReadyForQuery with status idle, that is, until its statement (simple, or
 * the whole Parse/Bind/Execute/Sync of the extended protocol) or its transaction is over. Only
 * then may another connection's messages run. (The socket server of @electric-sql/pglite-socket,
 * 0.2.9, switches connections between the messages of one extended-protocol statement outside
 * explicit transactions, so one connection's Bind can meet another's Parse: pglite#1046.)
 *
 * What outlives a turn in the session is kept per connection here: prepared statements get
 * names of the connection's own (StatementNames), its unnamed statement is put back when another
 * connection's took its place (UnnamedStatement), and whatever a connection that went away
 * left behind (a transaction, half an extended-protocol statement, its prepared statements) is
 * cleared before anyone else runs. Portals need nothing: they end with their transaction, and
 * turns end only outside transactions.
 */
export class PGliteServer {
  private readonly connections = new Set<Connection>();
  private readonly turns: Connection[] = [];
  private owner: Connection | undefined;
  /** Whose unnamed statement the session holds, as far as the current turn knows. */
  private unnamed: UnnamedStatement = NO_STATEMENT;
  /** An extended-protocol error happened and no Sync followed: Postgres skips everything else. */
  private awaitingSync = false;
  private pumping = false;
  private closing = false;
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
    this.closing = true;
    for (const connection of this.connections) connection.socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    // Let the call in flight finish before PGlite is closed.
    while (this.pumping) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    const connection = new Connection((connectionsOpened += 1), socket);
    this.connections.add(connection);
    socket.on('data', (chunk: Buffer) => this.receive(connection, chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.disconnect(connection));
  }

  private receive(connection: Connection, chunk: Buffer): void {
    if (connection.terminating || connection.closed) return;
    connection.received.push(chunk);
    const outcome = connection.started ? this.readMessages(connection) : this.readStartup(connection);
    if (outcome === 'violation') {
      // Postgres ends a connection whose framing it cannot follow; so do we.
      connection.socket.destroy();
      return;
    }
    if (connection.pending.length > 0 && connection !== this.owner && !this.turns.includes(connection))
      this.turns.push(connection);
    if (connection.terminating) this.endIfDone(connection);
    void this.pump();
  }

  /** Startup phase: length-prefixed packets without a type byte. */
  private readStartup(connection: Connection): ReadOutcome {
    const { received } = connection;
    while (received.length >= 8) {
      const length = received.int32(0);
      const code = received.int32(4);
      if (length === 8 && (code === SSL_REQUEST || code === GSSENC_REQUEST)) {
        received.take(8);
        connection.socket.write('N'); // no encryption on loopback
        continue;
      }
      if (length === 16 && code === CANCEL_REQUEST) {
        connection.terminating = true; // cancellation is not supported: the statement runs to its end
        return 'ok';
      }
      if (length < 8 || length > MAX_STARTUP_LENGTH) return 'violation';
      if (received.length < length) break;
      connection.pending.push(received.take(length));
      connection.started = true;
      return this.readMessages(connection);
    }
    return 'ok';
  }

  /** Whole typed messages; a message split across TCP chunks waits for its last byte. */
  private readMessages(connection: Connection): ReadOutcome {
    const { received } = connection;
    while (received.length >= 5) {
      const length = received.int32(1);
      if (length < 4) return 'violation';
      if (received.length < 1 + length) break;
      const message = received.take(1 + length);
      if (message[0] === TERMINATE) {
        connection.terminating = true; // what came before it still runs, nothing after it
        return 'ok';
      }
      connection.pending.push(message);
    }
    return 'ok';
  }

  private disconnect(connection: Connection): void {
    this.connections.delete(connection);
    connection.pending.length = 0;
    if (connection.closed) return; // already being cleared
    connection.closed = true;
    // Its turn, if it has one, and its prepared statements are cleared in the pump.
    if (connection !== this.owner && !this.turns.includes(connection)) this.turns.push(connection);
    void this.pump();
  }

  /**
   * After Terminate: once the messages sent before it have run, the connection is done (not
   * when its socket closes: a client may keep its half open, and its turn with it).
   */
  private endIfDone(connection: Connection): void {
    if (connection.pending.length > 0 || connection.serving) return;
    connection.socket.end();
    this.disconnect(connection);
  }

  /** Serves the connections in turn, keeping the session with its owner until it is idle. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (!this.closing) {
        const connection = this.owner ?? this.turns.shift();
        if (!connection) return;
        try {
          if (connection.closed) await this.release(connection);
          else if (connection.pending.length > 0) await this.serve(connection);
          else if (connection === this.owner) return; // between the messages of its turn: wait for it
        } catch {
          // A fault here must cost one connection, never the process and everyone's database.
          connection.socket.destroy();
          this.disconnect(connection);
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Runs all of a connection's waiting messages in one call to PGlite. */
  private async serve(connection: Connection): Promise<void> {
    const startsTurn = connection !== this.owner;
    this.owner = connection;
    const batch = takeBatch(connection);
    const answer = new Answer();
    let awaitingSyncBefore = this.awaitingSync;
    connection.serving = true;
    try {
      await this.db.runExclusive(async () => {
        // Between turns anyone may have replaced it: another connection, or PGlite's own API,
        // which prepares unnamed statements too. pg never binds one it did not just parse, so
        // this costs nothing on its path.
        if (batch.usesUnnamed && (startsTurn || this.unnamed !== connection.unnamed)) {
          await this.restoreUnnamed(connection);
          awaitingSyncBefore = this.awaitingSync;
        }
        await this.db.execProtocolRawStream(batch.bytes, {
          // `data` is a view into PGlite's WASM memory, reused by the next write and invalid once
          // that memory grows: copy it before anything keeps it (the socket may queue it).
          onRawData: (data: Uint8Array) => {
            const copy = Buffer.from(data);
            answer.scan(copy);
            connection.send(copy);
          },
        });
      });
    } catch {
      // PGlite failed on these messages: what it left in the session is unknown, so the
      // connection ends and its turn is cleared like that of a client that went away.
      connection.socket.destroy();
      this.disconnect(connection);
      return;
    } finally {
      connection.serving = false;
    }
    this.note(answer);
    if (batch.definesUnnamed) {
      // After an error Postgres skips messages until Sync: which Parse ran is unknown, so the
      // statement counts as one that cannot be put back (a later Bind then fails, never binds
      // the wrong statement).
      const certain = answer.errors === 0 && !awaitingSyncBefore;
      connection.unnamed = this.unnamed = certain ? batch.definesUnnamed : {};
    }
    // A batch that ran nothing (a lone Flush) starts no turn.
    if (answer.endsIdle || (startsTurn && answer.bytes === 0 && !this.awaitingSync)) {
      this.owner = undefined;
      if (connection.pending.length > 0 || connection.closed) this.turns.push(connection);
    }
    if (connection.terminating) this.endIfDone(connection);
  }

  /**
   * Puts a connection's unnamed statement back where another connection's took its place, by
   * running its Parse again (or emptying the slot if it had none). Its error, if any, is the
   * connection's: it fails the Bind that needed the statement, as Postgres would.
   */
  private async restoreUnnamed(connection: Connection): Promise<void> {
    const wanted = connection.unnamed;
    const reply = await this.db.execProtocolRaw(wanted.parse ?? CLOSE_UNNAMED, { syncToFs: false });
    const answer = new Answer();
    answer.scan(reply);
    this.note(answer);
    if (answer.errors > 0) {
      this.unnamed = NO_STATEMENT; // a failed Parse of "" has dropped the old statement first
      connection.send(reply);
    } else if (answer.bytes > 0) {
      this.unnamed = wanted;
    } // no answer: skipped while Postgres waits for a Sync, nothing changed
  }

  /**
   * Clears what a connection that went away left in the session: the rest of its turn
   * (transaction, half a statement, an error waiting for Sync) and its prepared statements.
   */
  private async release(connection: Connection): Promise<void> {
    const endsTurn = connection === this.owner;
    if (endsTurn) this.owner = undefined;
    const index = this.turns.indexOf(connection);
    if (index >= 0) this.turns.splice(index, 1);
    const messages: Buffer[] = [];
    if (endsTurn) {
      // After an extended-protocol error only Sync is heard. Then ROLLBACK ends an explicit
      // transaction or the implicit one of an unfinished Parse/Bind/Execute (never Sync alone:
      // it would commit that one).
      if (this.awaitingSync) messages.push(SYNC_MESSAGE);
      messages.push(simpleQuery('ROLLBACK'));
    }
    for (const name of connection.statements.release()) messages.push(closeStatement(name));
    if (messages.length === 0) return;
    messages.push(SYNC_MESSAGE);
    try {
      const reply = await this.db.runExclusive(() =>
        this.db.execProtocolRaw(Buffer.concat(messages), { syncToFs: endsTurn }),
      );
      const answer = new Answer();
      answer.scan(reply);
      this.note(answer);
      if (endsTurn) this.unnamed = NO_STATEMENT; // a simple query drops the unnamed statement
    } catch {
      // Nothing better to do: the next connection's statements report what is wrong.
    }
  }

  private note(answer: Answer): void {
    if (answer.awaitingSync !== undefined) this.awaitingSync = answer.awaitingSync;
  }
}

type ReadOutcome = 'ok' | 'violation';

/** One client connection: its unparsed bytes, its whole messages waiting for their turn. */
class Connection {
  readonly received = new ReceivedBytes();
  readonly pending: Buffer[] = [];
  readonly statements: StatementNames;
  /** Its unnamed statement as it would be on a server of its own. */
  unnamed: UnnamedStatement = NO_STATEMENT;
  started = false;
  /** Sent Terminate: nothing after it is read. */
  terminating = false;
  closed = false;
  /** Its messages are in PGlite right now. */
  serving = false;

  constructor(
    id: number,
    readonly socket: Socket,
  ) {
    this.statements = new StatementNames(id);
  }

  send(data: Uint8Array): void {
    if (!this.closed && this.socket.writable) this.socket.write(data);
  }
}

/**
 * The bytes a client sent that are not yet messages. Chunks are joined only when a message
 * needs them, so a large message arriving in many chunks is copied once, not once per chunk.
 */
class ReceivedBytes {
  private chunks: Buffer[] = [];
  length = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  int32(offset: number): number {
    return this.front(offset + 4).readInt32BE(offset);
  }

  take(count: number): Buffer {
    const front = this.front(count);
    const taken = front.subarray(0, count);
    if (front.length === count) this.chunks.shift();
    else this.chunks[0] = front.subarray(count);
    this.length -= count;
    return taken;
  }

  /** The first chunk, holding at least `count` bytes. */
  private front(count: number): Buffer {
    if (this.chunks[0]!.length < count) this.chunks = [Buffer.concat(this.chunks, this.length)];
    return this.chunks[0]!;
  }
}

/**
 * A connection's prepared statements under names of its own in the shared session: "card" of
 * connection 7 is "c7:card". Two live connections may then prepare the same name, and a new
 * connection never meets the statements of one that went (pg pools close idle connections).
 * Names that would not fit Postgres' 63 bytes with the prefix are numbered ("c7#0").
 */
class StatementNames {
  private readonly prefix: Buffer;
  private readonly longPrefix: string;
  private readonly names = new Map<string, Buffer>();

  constructor(connectionId: number) {
    this.prefix = Buffer.from(`c${connectionId}:`);
    this.longPrefix = `c${connectionId}#`;
  }

  /** The session's name for a statement name of the client (its bytes, not empty). */
  map(name: Buffer): Buffer {
    // Keyed like Postgres compares them: by their first 63 bytes.
    const key = name.subarray(0, STATEMENT_NAME_BYTES).toString('latin1');
    let mapped = this.names.get(key);
    if (!mapped) {
      mapped =
        this.prefix.length + name.length <= STATEMENT_NAME_BYTES
          ? Buffer.concat([this.prefix, name])
          : Buffer.from(`${this.longPrefix}${this.names.size}`);
      this.names.set(key, mapped);
    }
    return mapped;
  }

  /** Every session name handed out (closing one never prepared is no error); forgets them. */
  release(): Buffer[] {
    const names = [...this.names.values()];
    this.names.clear();
    return names;
  }
}

/**
 * What an unnamed-statement slot holds, compared by identity: the outcome of the Parse message
 * `parse`, or, without `parse`, no statement (or one this server cannot prepare again).
 */
interface UnnamedStatement {
  readonly parse?: Buffer;
}
const NO_STATEMENT: UnnamedStatement = {};

interface Batch {
  readonly bytes: Buffer;
  /** The batch binds or describes the unnamed statement before it prepares one. */
  readonly usesUnnamed: boolean;
  /** What the batch leaves in the unnamed statement, if it changes it. */
  readonly definesUnnamed: UnnamedStatement | undefined;
}

/**
 * A connection's waiting messages as one call to PGlite (one call per batch instead of per
 * message halves PGlite's time for pg's Parse/Bind/Describe/Execute/Sync), statement names
 * made the session's. The startup packet always goes alone: PGlite reads it differently.
 */
function takeBatch(connection: Connection): Batch {
  const messages =
    connection.pending[0]![0] === 0 ? connection.pending.splice(0, 1) : connection.pending.splice(0);
  let usesUnnamed = false;
  let definesUnnamed: UnnamedStatement | undefined;
  const parts = messages.map((message) => {
    const step = translate(message, connection.statements);
    if (step.unnamed === 'use' && definesUnnamed === undefined) usesUnnamed = true;
    if (step.unnamed !== 'use' && step.unnamed !== undefined) definesUnnamed = step.unnamed;
    return step.message;
  });
  return { bytes: joinMessages(parts), usesUnnamed, definesUnnamed };
}

interface Translated {
  message: Buffer;
  /** Uses the unnamed statement, or replaces it with this. */
  unnamed?: 'use' | UnnamedStatement;
}

/** One frontend message with the session's statement name, and what it does to the unnamed statement. */
function translate(message: Buffer, names: StatementNames): Translated {
  switch (message[0]) {
    case PARSE: {
      const end = message.indexOf(0, 5);
      if (end === 5) return { message, unnamed: { parse: message } };
      return { message: renamed(message, 5, end, names) };
    }
    case BIND: {
      const start = message.indexOf(0, 5) + 1; // after the portal name
      const end = start > 0 ? message.indexOf(0, start) : -1;
      if (end === start) return { message, unnamed: 'use' };
      return { message: renamed(message, start, end, names) };
    }
    case DESCRIBE:
    case CLOSE: {
      if (message[5] !== STATEMENT) return { message };
      const end = message.indexOf(0, 6);
      if (end === 6) return { message, unnamed: message[0] === DESCRIBE ? 'use' : NO_STATEMENT };
      return { message: renamed(message, 6, end, names) };
    }
    case QUERY:
      return { message, unnamed: NO_STATEMENT }; // a simple query drops the unnamed statement
    default:
      return { message };
  }
}

/** `message` with the statement name at [start, end) mapped; a malformed one goes as it is. */
function renamed(message: Buffer, start: number, end: number, names: StatementNames): Buffer {
  if (end < start) return message; // no terminating NUL: Postgres reports it
  const name = names.map(message.subarray(start, end));
  const result = Buffer.concat([message.subarray(0, start), name, message.subarray(end)]);
  result.writeInt32BE(result.length - 1, 1);
  return result;
}

/** Messages as one buffer; those still side by side in the chunk they came in need no copy. */
function joinMessages(parts: Buffer[]): Buffer {
  const first = parts[0]!;
  let end = first.byteOffset + first.length;
  for (const part of parts.slice(1)) {
    if (part.buffer !== first.buffer || part.byteOffset !== end) return Buffer.concat(parts);
    end += part.length;
  }
  return Buffer.from(first.buffer, first.byteOffset, end - first.byteOffset);
}

/** Follows PGlite's answer message by message, across the chunks it comes in. */
class Answer {
  bytes = 0;
  errors = 0;
  /** An ErrorResponse came after the last ReadyForQuery; undefined: neither came. */
  awaitingSync: boolean | undefined;
  private type = 0;
  private status = 0;
  private readonly header = Buffer.alloc(5);
  private headerBytes = 0;
  private bodyLeft = 0;
  private atBodyStart = false;

  scan(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    let offset = 0;
    while (offset < chunk.length) {
      if (this.bodyLeft > 0) {
        if (this.atBodyStart && this.type === READY_FOR_QUERY) this.status = chunk[offset]!;
        this.atBodyStart = false;
        const step = Math.min(this.bodyLeft, chunk.length - offset);
        this.bodyLeft -= step;
        offset += step;
      } else {
        this.header[this.headerBytes++] = chunk[offset++]!;
        if (this.headerBytes === 5) this.begin();
      }
    }
  }

  /** The answer ends with ReadyForQuery idle: no transaction and no statement under way. */
  get endsIdle(): boolean {
    return (
      this.type === READY_FOR_QUERY && this.status === IDLE && this.bodyLeft === 0 && this.headerBytes === 0
    );
  }

  private begin(): void {
    this.headerBytes = 0;
    this.type = this.header[0]!;
    this.bodyLeft = this.header.readInt32BE(1) - 4;
    this.atBodyStart = true;
    if (this.type === ERROR_RESPONSE) {
      this.errors += 1;
      this.awaitingSync = true;
    } else if (this.type === READY_FOR_QUERY) {
      this.awaitingSync = false;
    }
  }
}

function frontendMessage(type: number, body: Buffer): Buffer {
  const message = Buffer.alloc(5 + body.length);
  message[0] = type;
  message.writeInt32BE(4 + body.length, 1);
  body.copy(message, 5);
  return message;
}

function simpleQuery(sql: string): Buffer {
  return frontendMessage(QUERY, Buffer.from(`${sql}\0`));
}

function closeStatement(name: Buffer): Buffer {
  return frontendMessage(CLOSE, Buffer.concat([Buffer.from([STATEMENT]), name, Buffer.from([0])]));
}

const SYNC_MESSAGE = frontendMessage(SYNC, Buffer.alloc(0));
const CLOSE_UNNAMED = closeStatement(Buffer.alloc(0));
