import { queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';

// Every write of an event takes its stage lock first, so that locks are always taken in the same
// order (the stage, then questions or polls) and no two writers can deadlock: a post updates the
// event's row of engagement.stages (its sequence), every other write holds the event's advisory
// stage lock shared. The end of the event takes that lock exclusively and then updates the row:
// it waits for the writes in flight, and every write after it sees `ended_at` and is refused.
// The recording assembled at the end therefore holds everything that was accepted. The lock's
// functions, engagement.hold_open and engagement.close_stage, are called through db/functions.ts.

async function ensureStage(manager: EntityManager, eventId: string): Promise<void> {
  await manager.query('INSERT INTO engagement.stages (event_id) VALUES ($1) ON CONFLICT DO NOTHING', [
    eventId,
  ]);
}

/**
 * The next stage sequence of the event, or null once it has ended. The row stays locked until
 * the transaction ends, so sequences are gap-free (a rollback gives the number back) and commit
 * in order: a reader who sees sequence n has already been able to see n - 1.
 */
export async function nextSequence(manager: EntityManager, eventId: string): Promise<number | null> {
  await ensureStage(manager, eventId);
  const [row] = await queryRows<{ last_sequence: number }>(
    manager,
    `UPDATE engagement.stages SET last_sequence = last_sequence + 1
     WHERE event_id = $1 AND ended_at IS NULL RETURNING last_sequence`,
    [eventId],
  );
  return row ? row.last_sequence : null;
}
