// A deployed database upgraded to the repeatable function step (issue [16]): the schema as the
// migrations of that time made it (their own functions, no function_checksums), questions and a
// block written through those functions, then the migrate command of today. Its data stays as it
// was, and today's functions (db/functions/) run on it.
import { randomUUID } from 'node:crypto';
import { EngagementTopics } from '@townhall/contracts';
import { migrateSchema } from '@townhall/platform/service';
import { deployedSchemaUnderTest, functionDrift, type SchemaUnderTest } from '@townhall/testing';
import { createEngagementDataSource } from '../src/data-source.js';
import { holdOpen, isBlockedCall, submitQuestionCall } from '../src/db/functions.js';

describe('engagement: a deployed database upgraded to the functions applied by checksum', () => {
  let schema: SchemaUnderTest;

  beforeAll(async () => {
    schema = await deployedSchemaUnderTest(createEngagementDataSource);
  });
  afterAll(() => schema?.close());

  const eventId = randomUUID();
  const snapshot = () =>
    schema.query(
      `SELECT (SELECT json_agg(q ORDER BY seq) FROM engagement.questions q) AS questions,
              (SELECT json_agg(b ORDER BY seq) FROM engagement.blocks b) AS blocks,
              (SELECT json_agg(s ORDER BY event_id) FROM engagement.stages s) AS stages,
              (SELECT json_agg(o ORDER BY seq) FROM engagement.outbox o) AS outbox`,
    );

  it('keeps the questions and blocks written through the old functions, and runs the new ones on them', async () => {
    expect(schema.built).toHaveLength(3);
    const { dataSource, outbox, database } = schema;
    // A question through the old engagement.submit_question, and a block.
    const ask = (author: string) =>
      schema.query<{ outcome: string }>(
        `SELECT engagement.submit_question(gen_random_uuid(), $1, $2, 'Asked before', now(), 2, 'open', '[]'::jsonb)
           AS outcome`,
        [eventId, author],
      );
    expect(await ask('asker')).toEqual([{ outcome: 'submitted' }]);
    await schema.query(
      `INSERT INTO engagement.blocks (event_id, agent_id, blocked_by) VALUES ($1, 'troll', 'host')`,
      [eventId],
    );
    expect(await ask('troll')).toEqual([{ outcome: 'blocked' }]);
    const before = await snapshot();

    const applied = await migrateSchema(createEngagementDataSource(database.url, { size: 1 }));
    // The migrations written since (the outbox's claim holders, its published rows deleted: none
    // here, the old rows wait to be published; attendance), then every function by checksum.
    expect(applied).toEqual([
      'OutboxClaims1767000000000',
      'OutboxPublishedDeleted1767500000000',
      'Attendance1768000000000',
      ...dataSource.functions.map((fn) => `function engagement.${fn.name}`),
    ]);
    expect(await snapshot()).toEqual(before);
    expect(await functionDrift(dataSource)).toEqual([]);
    expect(await migrateSchema(createEngagementDataSource(database.url, { size: 1 }))).toEqual([]);
    // The deployed release's call, still served while it runs beside the new one: its refusal as text.
    expect(await ask('troll')).toEqual([{ outcome: 'blocked' }]);

    // Today's functions on the old rows: the block made before (engagement.is_blocked, new), the
    // rate counting the question asked before.
    const submit = submitQuestionCall(dataSource, outbox);
    const question = (authorId: string) => ({
      id: randomUUID(),
      eventId,
      authorId,
      body: 'Asked after',
      at: new Date().toISOString(),
      perMinute: 2,
      state: 'open' as const,
      events: outbox.prepare([{ type: EngagementTopics.questionSubmitted, subject: eventId, data: null }]),
      standing: null,
    });
    expect(await isBlockedCall(dataSource)({ eventId, agentId: 'troll' })).toBe(true);
    expect(await submit(question('troll'))).toMatchObject({ refusal: 'blocked' });
    expect(await submit(question('asker'))).toEqual({ outcome: 'submitted' });
    expect(await submit(question('asker'))).toMatchObject({ refusal: 'rate_limited' });
    expect(await schema.transaction((manager) => holdOpen(manager, { eventId }))).toBe(true);
    const [count] = await schema.query<{ questions: number }>(
      `SELECT count(*)::int AS questions FROM engagement.questions WHERE event_id = $1`,
      [eventId],
    );
    expect(count!.questions).toBe(2);
  });
});
