import type { EntityManager } from 'typeorm';

/**
 * The `gateway_id` of the sessions writes make: no gateway is named so (RecordPresence refuses
 * it), so a gateway's snapshot never ends or extends one.
 */
export const WRITE_GATEWAY = 'write';

/**
 * A ticket holder is present when they write (docs/product.md "The report"): a stage post, a
 * question, an upvote or a ballot is a session of no length at `at`: the question's own row is that
 * record (AttendanceBook reads it), the others write one in the write's transaction. Recorded whatever the event's
 * status: the report counts it only while the event was live.
 */
export async function recordWritePresence(
  manager: EntityManager,
  write: { eventId: string; agentId: string; at: Date },
): Promise<void> {
  await manager.query(
    `INSERT INTO engagement.stream_sessions
       (event_id, agent_id, gateway_id, interval_ms, started_at, last_seen_at, ended_at)
     VALUES ($1, $2, '${WRITE_GATEWAY}', 0, $3, $3, $3)`,
    [write.eventId, write.agentId, write.at.toISOString()],
  );
}
