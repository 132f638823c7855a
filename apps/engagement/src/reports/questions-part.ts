import type { EngagementReport } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';

/** How many questions the report lists as the most upvoted. */
export const TOP_QUESTIONS = 5;

/**
 * The report's questions (docs/product.md "The report"): every question submitted to the event,
 * whatever became of it; those promoted to the stage (answered ones were promoted first); their
 * upvotes; and the TOP_QUESTIONS most upvoted, the oldest first among equals, in any state.
 */
export async function questionsPart(
  manager: EntityManager,
  eventId: string,
): Promise<EngagementReport['questions']> {
  const [counts] = await queryRows<{ asked: number; promoted: number; upvotes: number }>(
    manager,
    `SELECT count(*)::integer AS asked,
            count(*) FILTER (WHERE state IN ('promoted', 'answered'))::integer AS promoted,
            COALESCE(sum(upvotes), 0)::integer AS upvotes
       FROM engagement.questions WHERE event_id = $1`,
    [eventId],
  );
  const top = await queryRows<{
    id: string;
    author_id: string;
    body: string;
    upvotes: number;
    state: string;
  }>(
    manager,
    `SELECT id, author_id, body, upvotes, state FROM engagement.questions
      WHERE event_id = $1 ORDER BY upvotes DESC, seq LIMIT ${TOP_QUESTIONS}`,
    [eventId],
  );
  return {
    asked: counts?.asked ?? 0,
    promoted: counts?.promoted ?? 0,
    upvotes: counts?.upvotes ?? 0,
    top: top.map((row) => ({
      id: row.id,
      authorId: row.author_id,
      body: row.body,
      upvotes: row.upvotes,
      state: row.state,
    })),
  };
}
