// The typed calls of engagement's server-side functions: one wrapper per function of ./functions/
// (<name>.sql, its one definition, applied by the migrate command after the migrations), with
// named arguments, the outcomes it answers, and its refusals (SQLSTATE TH001, `refusable`) as an
// outcome. A function called in autocommit, as a transaction of its own, goes through
// OutboxWriter.runStatement (deadlock and fault retries, then the relay woken); the others run in
// the caller's transaction, which OutboxWriter.run retries.
import type { CloudEvent, QuestionState } from '@townhall/contracts';
import {
  OutboxWriter,
  preparedStatement,
  queryRows,
  refusable,
  type Refused,
} from '@townhall/platform/service';
import type { DataSource, EntityManager } from 'typeorm';

/**
 * engagement.hold_open (hold_open.sql): holds the event open until the caller's transaction ends
 * (its stage lock, shared); false if it has ended.
 */
export async function holdOpen(manager: EntityManager, args: { eventId: string }): Promise<boolean> {
  const [row] = await queryRows<{ open: boolean }>(
    manager,
    'SELECT engagement.hold_open(p_event => $1) AS open',
    [args.eventId],
  );
  return row?.open === true;
}

/**
 * engagement.close_stage (close_stage.sql): marks the event ended in the caller's transaction,
 * after every write in flight (the stage lock, exclusive); nothing is accepted for it afterwards.
 */
export async function closeStage(
  manager: EntityManager,
  args: { eventId: string; endedAt: string },
): Promise<void> {
  await queryRows(manager, 'SELECT engagement.close_stage(p_event => $1, p_ended_at => $2)', [
    args.eventId,
    args.endedAt,
  ]);
}

/**
 * engagement.is_blocked (is_blocked.sql), prepared on the DataSource's pool: whether a moderator
 * or the host blocked the agent in the event. The same check runs inside the queries that call
 * the function (the participant's standing, submit_question, public question reads).
 */
export function isBlockedCall(
  dataSource: DataSource,
): (args: { eventId: string; agentId: string }) => Promise<boolean> {
  const isBlocked = preparedStatement<{ blocked: boolean }>(
    dataSource,
    'engagement.is_blocked',
    'SELECT engagement.is_blocked(p_event => $1, p_agent => $2) AS blocked',
  );
  return async (args) => (await isBlocked([args.eventId, args.agentId]))[0]?.blocked === true;
}

export interface SubmitQuestionArgs {
  id: string;
  eventId: string;
  authorId: string;
  body: string;
  at: string;
  /** How many questions an agent may ask per event per minute. */
  perMinute: number;
  state: Extract<QuestionState, 'open' | 'pending'>;
  /** Appended to the outbox with the question (townhall.question.submitted). */
  events: CloudEvent[];
  /**
   * The text of the engagement.standing row the question was authorized on, compared with the
   * standing now ('stale' when they differ); null: not compared.
   */
  standing: string | null;
}

/** Why engagement.submit_question wrote nothing. */
export type SubmitQuestionRefusal = 'ended' | 'blocked' | 'stale' | 'rate_limited';
const SUBMIT_QUESTION_REFUSALS: readonly SubmitQuestionRefusal[] = [
  'ended',
  'blocked',
  'stale',
  'rate_limited',
];

export type SubmitQuestionOutcome = { outcome: 'submitted' } | Refused<SubmitQuestionRefusal>;

/**
 * engagement.submit_question (submit_question.sql): a question in one prepared statement that is
 * its own transaction, through `outbox.runStatement`. A refusal rolled it back: it wrote nothing.
 */
export function submitQuestionCall(
  dataSource: DataSource,
  outbox: OutboxWriter,
): (args: SubmitQuestionArgs) => Promise<SubmitQuestionOutcome> {
  const submit = preparedStatement<{ outcome: 'submitted' }>(
    dataSource,
    'engagement.submit_question',
    `SELECT engagement.submit_question(p_id => $1, p_event => $2, p_author => $3, p_body => $4, p_at => $5,
       p_per_minute => $6, p_state => $7, p_events => $8::jsonb, p_standing => $9, p_raise_refusals => true)
       AS outcome`,
  );
  return (args) =>
    refusable(SUBMIT_QUESTION_REFUSALS, async () => {
      await outbox.runStatement(
        () =>
          submit([
            args.id,
            args.eventId,
            args.authorId,
            args.body,
            args.at,
            args.perMinute,
            args.state,
            JSON.stringify(args.events),
            args.standing,
          ]),
        // Answered at all, it wrote the question and its event: a refusal is raised.
        { committed: () => args.events },
      );
      return { outcome: 'submitted' as const };
    });
}
