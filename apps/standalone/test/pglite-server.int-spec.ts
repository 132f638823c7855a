import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { PGliteServer } from '../src/pglite-server.js';

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
