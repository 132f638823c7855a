// Claims stay exclusive while a rollout runs the release that claimed under a former key beside
// the one that claims under the durables' names (claim-keys-v1.ts claimFormerKeyFunction), on the
// real PostgreSQL: one claims first, the other is handed the same event again.
import { randomBytes, randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@townhall/testing';
import type { DataSource, EntityManager } from 'typeorm';
import { createSchemaDataSource } from '../src/database.js';
import {
  claimEventOnce,
  claimEventsOnce,
  claimFormerKeyFunction,
  outboxMigrationSql,
} from '../src/outbox/index.js';
import { applySqlFunctions } from '../src/sql-functions.js';

const SCHEMA = `claims_${randomBytes(4).toString('hex')}`;
const FORMER = 'counts';
const DURABLES = ['ticket-counts', 'poll-counts'];

let database: TestDatabase;
let dataSource: DataSource;

beforeAll(async () => {
  database = await createTestDatabase('claim_former_key_test');
  dataSource = createSchemaDataSource({ url: database.url, schema: SCHEMA, entities: [], migrations: [] });
  await dataSource.initialize();
  await dataSource.query(`CREATE SCHEMA ${SCHEMA}`);
  for (const statement of outboxMigrationSql(SCHEMA)) await dataSource.query(statement);
  await applySqlFunctions(dataSource, SCHEMA, [claimFormerKeyFunction(`"${SCHEMA}"`, FORMER, DURABLES)]);
});
afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
});

const claim = (consumer: string, eventId: string) =>
  dataSource.transaction((manager) => claimEventOnce(manager, SCHEMA, consumer, eventId));

async function claimsOf(eventId: string): Promise<string[]> {
  const rows: Array<{ consumer: string }> = await dataSource.query(
    `SELECT consumer FROM ${SCHEMA}.processed_events WHERE event_id = $1 ORDER BY consumer`,
    [eventId],
  );
  return rows.map((row) => row.consumer);
}

/** A transaction held open after `work`, until `end` says how it ends. */
async function openTransaction<T>(work: (manager: EntityManager) => Promise<T>) {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  await runner.startTransaction();
  const result = await work(runner.manager);
  return {
    result,
    end: async (how: 'commit' | 'rollback') => {
      await (how === 'commit' ? runner.commitTransaction() : runner.rollbackTransaction());
      await runner.release();
    },
  };
}

describe('claims under a durable while the release before claims under the former key', () => {
  it('claims a new event under the durable and the former key, once', async () => {
    const event = randomUUID();
    expect(await claim('ticket-counts', event)).toBe(true);
    expect(await claimsOf(event)).toEqual(['counts', 'ticket-counts']);
    expect(await claim('ticket-counts', event)).toBe(false);
    // The release before, handed it again, finds it claimed.
    expect(await claim(FORMER, event)).toBe(false);
    expect(await claimsOf(event)).toEqual(['counts', 'ticket-counts']);
  });

  it('does not claim an event the release before applied under the former key', async () => {
    const event = randomUUID();
    expect(await claim(FORMER, event)).toBe(true);
    expect(await claim('ticket-counts', event)).toBe(false);
    expect(await claimsOf(event)).toEqual(['counts']);
  });

  it('claims a batch except the events the release before applied', async () => {
    const [applied, fresh, twice] = [randomUUID(), randomUUID(), randomUUID()];
    expect(await claim(FORMER, applied)).toBe(true);
    const claimed = await dataSource.transaction((manager) =>
      claimEventsOnce(manager, SCHEMA, 'poll-counts', [applied, fresh, twice, twice]),
    );
    expect([...claimed].sort()).toEqual([fresh, twice].sort());
    expect(await claimsOf(fresh)).toEqual(['counts', 'poll-counts']);
  });

  it('leaves other consumers alone', async () => {
    const event = randomUUID();
    expect(await claim('webhooks', event)).toBe(true);
    expect(await claimsOf(event)).toEqual(['webhooks']);
  });

  it.each([
    ['commits', 'commit', false],
    ['rolls back', 'rollback', true],
  ] as const)(
    'waits for a claim of the release before in flight: when it %s, the durable claims %s',
    async (_what, how, durableClaims) => {
      const event = randomUUID();
      const before = await openTransaction((manager) => claimEventOnce(manager, SCHEMA, FORMER, event));
      expect(before.result).toBe(true);
      const racing = claim('ticket-counts', event);
      // The durable's claim waits on the unique index for the open transaction.
      const settled = await Promise.race([racing.then(() => 'settled'), sleep(300).then(() => 'waiting')]);
      expect(settled).toBe('waiting');
      await before.end(how);
      expect(await racing).toBe(durableClaims);
      expect(await claimsOf(event)).toEqual(durableClaims ? ['counts', 'ticket-counts'] : ['counts']);
    },
  );

  it('makes the release before wait for a claim of the durable in flight, and then not claim', async () => {
    const event = randomUUID();
    const now = await openTransaction((manager) => claimEventOnce(manager, SCHEMA, 'poll-counts', event));
    expect(now.result).toBe(true);
    const racing = claim(FORMER, event);
    await sleep(100);
    await now.end('commit');
    expect(await racing).toBe(false);
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
