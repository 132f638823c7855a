import type { AgentEngagement } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';

/**
 * Each agent's part in the event, for the report's CSV (docs/product.md "The report"): every agent
 * who asked a question (any state) or cast a ballot in one of its polls, by agentId.
 */
export async function agentsPart(manager: EntityManager, eventId: string): Promise<AgentEngagement[]> {
  const rows = await queryRows<{ agent_id: string; questions_asked: number; votes_cast: number }>(
    manager,
    `SELECT agent_id, sum(asked)::integer AS questions_asked, sum(cast_)::integer AS votes_cast
       FROM (SELECT author_id AS agent_id, 1 AS asked, 0 AS cast_ FROM engagement.questions WHERE event_id = $1
             UNION ALL
             SELECT b.agent_id, 0, 1 FROM engagement.ballots b JOIN engagement.polls p ON p.id = b.poll_id
              WHERE p.event_id = $1) AS part
      GROUP BY agent_id ORDER BY agent_id`,
    [eventId],
  );
  return rows.map((row) => ({
    agentId: row.agent_id,
    questionsAsked: row.questions_asked,
    votesCast: row.votes_cast,
  }));
}
