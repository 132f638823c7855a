import { queryRows } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';

// Every write of an event goes through its row of engagement.stages, first, so that locks are
// always taken in the same order (the stage row, then questions or polls) and no two writers
// can deadlock. The end of the event updates the row: it waits for the writes in flight, and
// every write after it sees `ended_at` and is refused. The recording assembled at the end
// therefore holds everything that was accepted.

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

/** Holds the event open (a shared lock) until the transaction ends; false if it has ended here. */
export async function holdOpen(manager: EntityManager, eventId: string): Promise<boolean> {
  await ensureStage(manager, eventId);
  const [row] = await queryRows<{ ended_at: Date | null }>(
    manager,
    'SELECT ended_at FROM engagement.stages WHERE event_id = $1 FOR SHARE',
    [eventId],
  );
  return row?.ended_at === null;
}

/** Marks the event ended, after every write in flight; nothing is accepted for it afterwards. */
export async function endStage(manager: EntityManager, eventId: string, endedAt: string): Promise<void> {
  await manager.query(
    `INSERT INTO engagement.stages AS s (event_id, ended_at) VALUES ($1, $2)
     ON CONFLICT (event_id) DO UPDATE SET ended_at = COALESCE(s.ended_at, EXCLUDED.ended_at)`,
    [eventId, endedAt],
  );
}
