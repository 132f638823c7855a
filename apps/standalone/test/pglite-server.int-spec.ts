import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { PGliteServer } from '../src/pglite-server.js';
import { errorOf, frontend, rowsOf, statusOf, WireClient } from './wire-client.js';

describe('PGliteServer: many pg connections on one PGlite', () => {
  let db: PGlite;
  let server: PGliteServer;
  let pool: pg.Pool;
  let url: string;

  beforeAll(async () => {
    db = await PGlite.create('memory://');
    server = new PGliteServer(db);
    const port = await server.listen();
    url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    pool = new pg.Pool({ connectionString: url, max: 10 });
    await pool.query('CREATE TABLE counter (id int PRIMARY KEY, value int NOT NULL)');
    await pool.query('INSERT INTO counter VALUES (1, 0)');
  });
  afterAll(async () => {
    await pool?.end();
    await server?.close();
    await db?.close();
  });

  it('keeps each extended-protocol statement whole: 500 parameterised queries on 10 connections', async () => {
    // Different parameter counts: a Bind meeting another connection's Parse would fail loudly.
    const results = await Promise.all(
      Array.from({ length: 500 }, (_, index) =>
        index % 2 === 0
          ? pool.query<{ sum: number }>('SELECT $1::int + $2::int AS sum', [index, 1])
          : pool.query<{ sum: number }>('SELECT $1::int AS sum', [index]),
      ),
    );
    expect(results.map((result) => result.rows[0]!.sum)).toEqual(
      Array.from({ length: 500 }, (_, index) => (index % 2 === 0 ? index + 1 : index)),
    );
  });

  it('isolates transactions: 200 read-modify-write increments from 10 connections lose none', async () => {
    await Promise.all(
      Array.from({ length: 200 }, async () => {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const { rows } = await client.query<{ value: number }>('SELECT value FROM counter WHERE id = 1');
          await client.query('UPDATE counter SET value = $1 WHERE id = 1', [rows[0]!.value + 1]);
          await client.query('COMMIT');
        } finally {
          client.release();
        }
      }),
    );
    const { rows } = await pool.query<{ value: number }>('SELECT value FROM counter WHERE id = 1');
    expect(rows[0]!.value).toBe(200);
  });

  it('rolls back the transaction of a client that disconnects in the middle, and serves the others', async () => {
    const quitter = new pg.Client({ connectionString: url });
    quitter.on('error', () => undefined); // its connection is cut on purpose
    await quitter.connect();
    await quitter.query('BEGIN');
    await quitter.query('UPDATE counter SET value = -1 WHERE id = 1');
    const waiting = pool.query<{ value: number }>('SELECT value FROM counter WHERE id = 1');
    // The pool's query waits for the open transaction; the client vanishes without COMMIT.
    (quitter as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    expect((await waiting).rows[0]!.value).toBe(200);
    await quitter.end().catch(() => undefined);
  });

  it('reports errors to the statement that caused them and goes on', async () => {
    await expect(pool.query('SELECT * FROM missing_table')).rejects.toThrow(/missing_table/);
    const { rows } = await pool.query<{ one: number }>('SELECT 1 AS one');
    expect(rows[0]!.one).toBe(1);
  });
});

describe('PGliteServer: one session, each connection on its own', () => {
  let db: PGlite;
  let server: PGliteServer;
  let pool: pg.Pool;
  let port: number;
  let url: string;

  beforeAll(async () => {
    db = await PGlite.create('memory://');
    server = new PGliteServer(db);
    port = await server.listen();
    url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    pool = new pg.Pool({ connectionString: url, max: 10 });
    await pool.query('CREATE TABLE notes (id serial PRIMARY KEY, author text NOT NULL, body text)');
  });
  afterAll(async () => {
    await pool?.end();
    await server?.close();
    await db?.close();
  });

  const notesBy = async (author: string): Promise<number> =>
    (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM notes WHERE author = $1', [author]))
      .rows[0]!.n;

  const preparedStatements = async (): Promise<number> =>
    (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements')).rows[0]!.n;

  it('carries large multi-byte values both ways and results over 1 MB (PGlite lends its memory)', async () => {
    // 2,800 euro signs are the 8.4 KB description that once took standalone down.
    const bodies = [2_800, 20_000].flatMap((length) => Array.from({ length: 5 }, () => '€'.repeat(length)));
    const [written, big] = await Promise.all([
      Promise.all(
        bodies.map((body) =>
          pool.query<{ body: string }>(
            "INSERT INTO notes (author, body) VALUES ('large', $1) RETURNING body",
            [body],
          ),
        ),
      ),
      pool.query<{ g: number; body: string }>(
        "SELECT g, repeat('€', 100) AS body FROM generate_series(1, 4000) g",
      ),
    ]);
    expect(written.map((result) => result.rows[0]!.body)).toEqual(bodies);
    expect(big.rows).toHaveLength(4_000); // 4,000 rows of 300 bytes: 1.2 MB
    expect(big.rows.every((row) => row.body === '€'.repeat(100))).toBe(true);
    const { rows } = await pool.query<{ bytes: number }>(
      "SELECT sum(octet_length(body))::int AS bytes FROM notes WHERE author = 'large'",
    );
    expect(rows[0]!.bytes).toBe(5 * 3 * (2_800 + 20_000));
  });

  it('answers 200 pipelined statements of one connection in order while others run', async () => {
    const client = await WireClient.connect(port);
    try {
      client.write(
        ...Array.from({ length: 200 }, (_, index) =>
          frontend.statement('SELECT $1::int * 2 AS v', [String(index)]),
        ),
      );
      const others = Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          pool.query<{ v: string }>('SELECT $1::text AS v', [`other ${index}`]),
        ),
      );
      const answers: string[] = [];
      for (let index = 0; index < 200; index += 1) answers.push(rowsOf(await client.untilReady())[0]![0]!);
      expect(answers).toEqual(Array.from({ length: 200 }, (_, index) => String(index * 2)));
      expect((await others).map((result) => result.rows[0]!.v)).toEqual(
        Array.from({ length: 50 }, (_, index) => `other ${index}`),
      );
    } finally {
      await client.vanish();
    }
  });

  it('lets live connections prepare statements of the same name', async () => {
    const clients = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        return client;
      }),
    );
    try {
      for (let round = 0; round < 10; round += 1) {
        const results = await Promise.all(
          clients.map((client, index) =>
            client.query<{ v: number }>({
              name: 'card',
              text: `SELECT $1::int + ${index * 100} AS v`,
              values: [round],
            }),
          ),
        );
        expect(results.map((result) => result.rows[0]!.v)).toEqual(
          clients.map((_, index) => round + index * 100),
        );
      }
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
  });

  it('tells long statement names apart as Postgres does: by their first 63 bytes', async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // 63 bytes each: too long for a connection prefix, so the server numbers them.
      for (const [index, name] of ['A', 'B'].map((last) => `${'x'.repeat(62)}${last}`).entries()) {
        const { rows } = await client.query<{ v: number }>({ name, text: `SELECT ${index} AS v` });
        expect(rows[0]!.v).toBe(index);
      }
      // 64 bytes, equal in the first 63: one statement to Postgres, so the second is refused.
      const [first, second] = ['A', 'B'].map((last) => `${'y'.repeat(63)}${last}`);
      await client.query({ name: first!, text: 'SELECT 1' });
      await expect(client.query({ name: second!, text: 'SELECT 2' })).rejects.toThrow(/already exists/);
    } finally {
      await client.end();
    }
  });

  it("keeps each connection's unnamed statement from one turn to the next", async () => {
    const [a, b] = await Promise.all([WireClient.connect(port), WireClient.connect(port)]);
    try {
      // PGlite's own API prepares unnamed statements too; a connection never binds one of those.
      await db.query('SELECT $1::int AS v', [7]);
      a.write(frontend.bind('', '', ['1']), frontend.execute(), frontend.sync());
      expect(errorOf(await a.untilReady())).toBe('unnamed prepared statement does not exist');

      // A prepares in one turn and binds in a later one; B uses its own unnamed statement between.
      a.write(frontend.parse('', 'SELECT $1::int + 1 AS v'), frontend.sync());
      expect((await a.untilReady()).map((message) => message.type)).toEqual(['1', 'Z']);
      b.write(frontend.statement("SELECT $1::text || '!' AS v", ['b']));
      expect(rowsOf(await b.untilReady())).toEqual([['b!']]);
      a.write(frontend.bind('', '', ['41']), frontend.execute(), frontend.sync());
      expect(rowsOf(await a.untilReady())).toEqual([['42']]);
      b.write(frontend.bind('', '', ['c']), frontend.execute(), frontend.sync());
      expect(rowsOf(await b.untilReady())).toEqual([['c!']]);
      a.write(frontend.describe('S', ''), frontend.sync());
      expect((await a.untilReady()).map((message) => message.type)).toEqual(['t', 'T', 'Z']);

      // As in Postgres, a simple query drops the connection's unnamed statement, and so does
      // a Parse that fails: a later Bind fails instead of binding B's statement.
      a.write(frontend.query('SELECT 1'));
      await a.untilReady();
      b.write(frontend.bind('', '', ['d']), frontend.execute(), frontend.sync());
      expect(rowsOf(await b.untilReady())).toEqual([['d!']]);
      a.write(frontend.bind('', '', ['1']), frontend.execute(), frontend.sync());
      expect(errorOf(await a.untilReady())).toBe('unnamed prepared statement does not exist');
      a.write(frontend.parse('', 'SELEC nothing'), frontend.sync());
      expect(errorOf(await a.untilReady())).toMatch(/syntax error/);
      b.write(frontend.bind('', '', ['e']), frontend.execute(), frontend.sync());
      expect(rowsOf(await b.untilReady())).toEqual([['e!']]);
      a.write(frontend.bind('', '', ['1']), frontend.execute(), frontend.sync());
      expect(errorOf(await a.untilReady())).toBe('unnamed prepared statement does not exist');
    } finally {
      await Promise.all([a.vanish(), b.vanish()]);
    }
  });

  it('gives a pool that reconnects after idling a fresh session, and forgets the statements of closed connections', async () => {
    const idling = new pg.Pool({ connectionString: url, max: 1, idleTimeoutMillis: 200 });
    const card = { name: 'directory_card_by_agent', text: 'SELECT $1::text AS agent' };
    try {
      expect((await idling.query<{ agent: string }>({ ...card, values: ['a1'] })).rows[0]!.agent).toBe('a1');
      await until(() => idling.totalCount === 0); // the pool closed its idle connection
      expect((await idling.query<{ agent: string }>({ ...card, values: ['a2'] })).rows[0]!.agent).toBe('a2');
    } finally {
      await idling.end();
    }
    for (let reconnect = 0; reconnect < 50; reconnect += 1) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query({ ...card, values: [String(reconnect)] });
      await client.query({ name: `other_${reconnect % 5}`, text: 'SELECT 1' });
      await client.end();
    }
    await until(async () => (await preparedStatements()) === 0);
  });

  it('reads messages however TCP cuts them: one byte per write, several messages per write', async () => {
    const client = await WireClient.connect(port, { byteByByte: true });
    try {
      await client.writeByteByByte(frontend.statement('SELECT $1::text AS v', ['one byte at a time']));
      expect(rowsOf(await client.untilReady())).toEqual([['one byte at a time']]);
      client.write(
        frontend.query('SELECT 1'),
        frontend.statement('SELECT $1::int AS v', ['2']),
        frontend.query('SELECT 3'),
      );
      expect(rowsOf(await client.untilReady())).toEqual([['1']]);
      expect(rowsOf(await client.untilReady())).toEqual([['2']]);
      expect(rowsOf(await client.untilReady())).toEqual([['3']]);
    } finally {
      await client.vanish();
    }
  });

  describe('a client that vanishes leaves nothing behind, and the others go on', () => {
    const insert = (author: string): Buffer =>
      frontend.statement('INSERT INTO notes (author) VALUES ($1)', [author]).subarray(0, -5); // no Sync

    async function expectCleanAfter(author: string, vanished: Promise<void>, waiting?: Promise<unknown>) {
      await vanished;
      await waiting;
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
      expect(db.isInTransaction()).toBe(false);
      expect(await notesBy(author)).toBe(0);
    }

    it('in the middle of a message', async () => {
      const client = await WireClient.connect(port);
      const message = frontend.query("INSERT INTO notes (author) VALUES ('half a message')");
      client.write(message.subarray(0, message.length / 2));
      await expectCleanAfter('half a message', client.vanish());
    });

    it('between Execute and Sync of an extended-protocol statement', async () => {
      const client = await WireClient.connect(port);
      client.write(insert('no sync'));
      await client.until('C'); // the row is written, its implicit transaction still open
      const waiting = pool.query('SELECT 1');
      await expectCleanAfter('no sync', client.vanish(), waiting);
    });

    it('inside a transaction', async () => {
      const client = await WireClient.connect(port);
      client.write(
        frontend.query('BEGIN'),
        frontend.query("INSERT INTO notes (author) VALUES ('in transaction')"),
      );
      await client.untilReady();
      expect(statusOf(await client.untilReady())).toBe('T');
      const waiting = pool.query('SELECT 1');
      await expectCleanAfter('in transaction', client.vanish(), waiting);
    });

    it('after an extended-protocol error inside a transaction, before Sync', async () => {
      const client = await WireClient.connect(port);
      client.write(frontend.query('BEGIN'));
      await client.untilReady();
      client.write(insert('after error'), frontend.sync());
      await client.untilReady();
      // Postgres now ignores everything but Sync, a ROLLBACK query included.
      client.write(frontend.bind('', 'missing'), frontend.execute());
      expect(errorOf(await client.until('E'))).toMatch(/"c\d+:missing" does not exist/);
      const waiting = pool.query('SELECT 1');
      await expectCleanAfter('after error', client.vanish(), waiting);
    });

    it('after an extended-protocol error outside a transaction, before Sync', async () => {
      const client = await WireClient.connect(port);
      client.write(frontend.parse('', 'SELEC nothing'));
      await client.until('E');
      const waiting = pool.query('SELECT 1');
      await expectCleanAfter('nobody', client.vanish(), waiting);
    });
  });

  it('runs what a client sent before Terminate, then closes', async () => {
    const client = await WireClient.connect(port);
    client.write(
      frontend.query("INSERT INTO notes (author) VALUES ('before terminate')"),
      frontend.terminate(),
    );
    await client.closed;
    expect(await notesBy('before terminate')).toBe(1);
  });

  it('ends the turn of a client that sends Terminate inside a transaction but keeps its socket open', async () => {
    const client = await WireClient.connect(port, { halfOpen: true });
    try {
      client.write(
        frontend.query('BEGIN'),
        frontend.query("INSERT INTO notes (author) VALUES ('terminated')"),
        frontend.terminate(),
      );
      await client.serverEnded;
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
      expect(db.isInTransaction()).toBe(false);
      expect(await notesBy('terminated')).toBe(0);
    } finally {
      await client.vanish();
    }
  });
});

/** Polls `condition` until it holds (at most 5 s). */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
