// Each of engagement's SQL functions (src/db/functions/) called through its typed wrapper
// (src/db/functions.ts) on a migrated database of its own: afresh, or (the service-upgraded
// project) upgraded from the schema deployed databases have. The rows each case starts from are
// written here directly; the use cases that call these functions are engagement.service-spec's.
import { randomUUID } from 'node:crypto';
import { EngagementTopics } from '@townhall/contracts';
import { functionDrift, migratedForTests, schemaUnderTest, type SchemaUnderTest } from '@townhall/testing';
import { createEngagementDataSource } from '../src/data-source.js';
import {
  closeStage,
  holdOpen,
  isBlockedCall,
  submitQuestionCall,
  type SubmitQuestionArgs,
} from '../src/db/functions.js';

describe("engagement's SQL functions, through their wrappers", () => {
  let schema: SchemaUnderTest;

  beforeAll(async () => {
    schema = await schemaUnderTest(createEngagementDataSource);
  });
  afterAll(() => schema?.close());

  const block = (eventId: string, agentId: string) =>
    schema.query(`INSERT INTO engagement.blocks (event_id, agent_id, blocked_by) VALUES ($1, $2, 'host')`, [
      eventId,
      agentId,
    ]);

  it('holds exactly its definitions, each as last applied, by the path this run asked for', async () => {
    expect(await functionDrift(schema.dataSource)).toEqual([]);
    expect(schema.built).toEqual(migratedForTests(schema.dataSource));
  });

  it('hold_open and close_stage: open until the stage closes, the first end standing', async () => {
    const eventId = randomUUID();
    const open = () => schema.transaction((manager) => holdOpen(manager, { eventId }));
    expect(await open()).toBe(true);
    const close = (endedAt: string) =>
      schema.transaction((manager) => closeStage(manager, { eventId, endedAt }));
    await close('2031-01-01T10:00:00.000Z');
    await close('2031-01-01T11:00:00.000Z');
    expect(await open()).toBe(false);
    const [stage] = await schema.query<{ ended_at: Date }>(
      `SELECT ended_at FROM engagement.stages WHERE event_id = $1`,
      [eventId],
    );
    expect(stage!.ended_at.toISOString()).toBe('2031-01-01T10:00:00.000Z');
  });

  it('is_blocked: whether the agent has a block in that event', async () => {
    const isBlocked = isBlockedCall(schema.dataSource);
    const [eventId, elsewhere] = [randomUUID(), randomUUID()];
    expect(await isBlocked({ eventId, agentId: 'troll' })).toBe(false);
    await block(eventId, 'troll');
    expect(await isBlocked({ eventId, agentId: 'troll' })).toBe(true);
    expect(await isBlocked({ eventId: elsewhere, agentId: 'troll' })).toBe(false);
    expect(await isBlocked({ eventId, agentId: 'someone' })).toBe(false);
  });

  describe('submit_question', () => {
    const submit = (args: SubmitQuestionArgs) => submitQuestionCall(schema.dataSource, schema.outbox)(args);
    function aQuestion(eventId: string, authorId: string, state: SubmitQuestionArgs['state'] = 'open') {
      const id = randomUUID();
      const events = schema.outbox.prepare([
        { type: EngagementTopics.questionSubmitted, subject: eventId, data: { id } },
      ]);
      return {
        id,
        eventId,
        authorId,
        body: 'Why?',
        at: new Date().toISOString(),
        perMinute: 2,
        state,
        events,
        standing: null as string | null,
      };
    }
    const questions = (eventId: string) =>
      schema.query<{ id: string; state: string }>(
        `SELECT id, state FROM engagement.questions WHERE event_id = $1 ORDER BY seq`,
        [eventId],
      );
    const announced = (eventId: string) =>
      schema.query<{ id: string }>(`SELECT id FROM engagement.outbox WHERE subject = $1 ORDER BY seq`, [
        eventId,
      ]);

    it('stores the question in its state with its domain event, at most perMinute a minute per agent', async () => {
      const eventId = randomUUID();
      const first = aQuestion(eventId, 'asker');
      expect(await submit(first)).toEqual({ outcome: 'submitted' });
      const held = aQuestion(eventId, 'asker', 'pending');
      expect(await submit(held)).toEqual({ outcome: 'submitted' });
      expect(await submit(aQuestion(eventId, 'asker'))).toEqual({
        outcome: 'refused',
        refusal: 'rate_limited',
        detail: null,
      });
      expect(await submit(aQuestion(eventId, 'another'))).toEqual({ outcome: 'submitted' });
      expect((await questions(eventId)).slice(0, 2)).toEqual([
        { id: first.id, state: 'open' },
        { id: held.id, state: 'pending' },
      ]);
      expect(await announced(eventId)).toHaveLength(3);
      expect((await announced(eventId))[0]!.id).toBe(first.events[0]!.id);
    });

    it('refuses a blocked author, and everyone once the event has ended, writing nothing', async () => {
      const eventId = randomUUID();
      await block(eventId, 'troll');
      expect(await submit(aQuestion(eventId, 'troll'))).toEqual({
        outcome: 'refused',
        refusal: 'blocked',
        detail: null,
      });
      await schema.transaction((manager) =>
        closeStage(manager, { eventId, endedAt: new Date().toISOString() }),
      );
      expect(await submit(aQuestion(eventId, 'asker'))).toEqual({
        outcome: 'refused',
        refusal: 'ended',
        detail: null,
      });
      expect(await questions(eventId)).toEqual([]);
      expect(await announced(eventId)).toEqual([]);
    });

    it('writes on the standing it was authorized on only while that is the standing now: else stale, writing nothing', async () => {
      const eventId = randomUUID();
      await schema.query(
        `INSERT INTO engagement.events (event_id, host_id, moderators, speakers, status, version)
         VALUES ($1, 'host', '{}', '{}', 'live', 1)`,
        [eventId],
      );
      await schema.query(
        `INSERT INTO engagement.attendance (ticket_id, event_id, agent_id, issued_at) VALUES ($1, $2, 'asker', now())`,
        [randomUUID(), eventId],
      );
      const standing = async () =>
        (
          await schema.query<{ text: string }>(
            `SELECT s::text AS text FROM engagement.standing(p_event => $1, p_agent => 'asker') AS s`,
            [eventId],
          )
        )[0]!.text;
      const seen = await standing();
      expect(await submit({ ...aQuestion(eventId, 'asker'), standing: seen })).toEqual({
        outcome: 'submitted',
      });
      // Each fact of the standing, changed, makes the one seen before stale.
      for (const change of [
        `UPDATE engagement.attendance SET cancelled_at = now() WHERE event_id = $1`,
        `UPDATE engagement.events SET moderators = '{asker}' WHERE event_id = $1`,
        `UPDATE engagement.events SET question_moderation = 'pre' WHERE event_id = $1`,
        `UPDATE engagement.events SET status = 'scheduled' WHERE event_id = $1`,
      ]) {
        const before = await standing();
        await schema.query(change, [eventId]);
        expect(await submit({ ...aQuestion(eventId, 'asker'), standing: before })).toEqual({
          outcome: 'refused',
          refusal: 'stale',
          detail: null,
        });
      }
      expect(await questions(eventId)).toHaveLength(1);
      expect(await announced(eventId)).toHaveLength(1);
      expect(await submit({ ...aQuestion(eventId, 'asker'), standing: await standing() })).toEqual({
        outcome: 'submitted',
      });
    });

    it("still answers the release before's call, without p_raise_refusals, with its refusal as text", async () => {
      // That release runs beside this one's migrated database during a rollout.
      const eventId = randomUUID();
      await block(eventId, 'troll');
      const asked = (authorId: string) => {
        const question = aQuestion(eventId, authorId);
        return schema.query<{ outcome: string }>(
          `SELECT engagement.submit_question(p_id => $1, p_event => $2, p_author => $3, p_body => $4,
             p_at => $5, p_per_minute => $6, p_state => $7, p_events => $8::jsonb, p_standing => $9) AS outcome`,
          [
            question.id,
            eventId,
            authorId,
            question.body,
            question.at,
            question.perMinute,
            question.state,
            JSON.stringify(question.events),
            question.standing,
          ],
        );
      };
      expect(await asked('troll')).toEqual([{ outcome: 'blocked' }]);
      expect(await asked('asker')).toEqual([{ outcome: 'submitted' }]);
      expect(await asked('asker')).toEqual([{ outcome: 'submitted' }]);
      expect(await asked('asker')).toEqual([{ outcome: 'rate_limited' }]);
      expect(await questions(eventId)).toHaveLength(2);
    });
  });
});
