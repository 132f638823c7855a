import type { EngagementReport } from '@townhall/contracts';
import { queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';

/**
 * The report's stage (docs/product.md "The report"): the messages posted to it, hidden ones
 * included; a promoted question put on the stage is counted with the questions, not here.
 */
export async function stagePart(manager: EntityManager, eventId: string): Promise<EngagementReport['stage']> {
  const [row] = await queryRows<{ messages: number }>(
    manager,
    `SELECT count(*)::integer AS messages FROM engagement.stage_messages WHERE event_id = $1 AND kind = 'message'`,
    [eventId],
  );
  return { messages: row?.messages ?? 0 };
}
