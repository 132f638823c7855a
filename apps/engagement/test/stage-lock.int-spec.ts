import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { migrateSchema } from '@townhall/platform/service';
import { createTestDatabase, type TestDatabase } from '@townhall/testing';
import type { DataSource, EntityManager } from 'typeorm';
import { createEngagementDataSource } from '../src/data-source.js';
import { closeStage, holdOpen } from '../src/db/functions.js';
import { nextSequence } from '../src/stage/stage-lock.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Medium test: the per-event stage row on a real Postgres, with transactions the test holds open. */
describe('the stage row: sequences and the end of an event', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('townhall_engagement_it');
    await migrateSchema(createEngagementDataSource(database.url, { size: 1 }));
    dataSource = createEngagementDataSource(database.url, { size: 5 });
    await dataSource.initialize();
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  /** Runs `work` in a transaction that stays open until the returned release() is called. */
  async function held<T>(work: (manager: EntityManager) => Promise<T>) {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let result!: (value: T) => void;
    const value = new Promise<T>((resolve) => (result = resolve));
    const done = dataSource.transaction(async (manager) => {
      result(await work(manager));
      await released;
    });
    return { value: await value, release, done };
  }

  const end = (eventId: string) =>
    dataSource.transaction((manager) => closeStage(manager, { eventId, endedAt: new Date().toISOString() }));

  it('numbers from 1 without gaps: a rolled-back sequence is taken again', async () => {
    const eventId = randomUUID();
    const next = () => dataSource.transaction((manager) => nextSequence(manager, eventId));
    expect(await next()).toBe(1);
    await expect(
      dataSource.transaction(async (manager) => {
        expect(await nextSequence(manager, eventId)).toBe(2);
        throw new Error('the insert failed');
      }),
    ).rejects.toThrow('the insert failed');
    expect(await next()).toBe(2);
  });

  it.each([
    ['a post (exclusive)', nextSequence],
    ['any other write (shared)', (manager: EntityManager, eventId: string) => holdOpen(manager, { eventId })],
  ] as const)('makes the end wait for %s in flight, and refuses every write after it', async (_, write) => {
    const eventId = randomUUID();
    const writer = await held<unknown>((manager) => write(manager, eventId));
    expect(writer.value).toBeTruthy();
    let ended = false;
    const ending = end(eventId).then(() => (ended = true));
    await sleep(200);
    expect(ended).toBe(false); // blocked by the write in flight
    writer.release();
    await writer.done;
    await ending;
    expect(await dataSource.transaction((manager) => nextSequence(manager, eventId))).toBeNull();
    expect(await dataSource.transaction((manager) => holdOpen(manager, { eventId }))).toBe(false);
  });

  it('lets shared writers run side by side', async () => {
    const eventId = randomUUID();
    await dataSource.transaction((manager) => holdOpen(manager, { eventId })); // the row exists
    const first = await held((manager) => holdOpen(manager, { eventId }));
    const second = await held((manager) => holdOpen(manager, { eventId }));
    expect([first.value, second.value]).toEqual([true, true]);
    first.release();
    second.release();
    await Promise.all([first.done, second.done]);
  });
});
