import { DEFAULT_MODERATION, type EventView } from '@townhall/contracts';
import type { EntityManager } from 'typeorm';

/**
 * What engagement.events keeps of an event: who holds which role, its status and its moderation;
 * and, when the view carries them (townhall.event.*, not the owners' Events.access), when it went
 * live and when it ended.
 */
export type EventStanding = Pick<
  EventView,
  'id' | 'hostId' | 'moderators' | 'speakers' | 'status' | 'version' | 'moderation'
> &
  Partial<Pick<EventView, 'startedAt' | 'endedAt'>>;

/**
 * Records an event's standing unless a newer version of it is recorded already. When it went live
 * and ended are facts that never change once they happened: recorded whatever the version, the
 * first time a view tells them (a standing recorded from the owners' answer, which does not, is
 * then completed by the domain event of the same version).
 */
export async function recordEventStanding(manager: EntityManager, event: EventStanding): Promise<void> {
  await manager.query(
    `INSERT INTO engagement.events AS e
       (event_id, host_id, moderators, speakers, status, version, question_moderation, report_threshold)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (event_id) DO UPDATE SET host_id = EXCLUDED.host_id, moderators = EXCLUDED.moderators,
       speakers = EXCLUDED.speakers, status = EXCLUDED.status, version = EXCLUDED.version,
       question_moderation = EXCLUDED.question_moderation, report_threshold = EXCLUDED.report_threshold
     WHERE e.version < EXCLUDED.version`,
    [
      event.id,
      event.hostId,
      event.moderators,
      event.speakers,
      event.status,
      event.version,
      // An event announced before moderation existed has the defaults.
      event.moderation?.questions ?? DEFAULT_MODERATION.questions,
      event.moderation?.reportThreshold ?? DEFAULT_MODERATION.reportThreshold,
    ],
  );
  if (event.startedAt || event.endedAt) await recordLiveWindow(manager, event.id, event);
}

/** Records when the event went live and ended, where engagement.events does not know it yet. */
export async function recordLiveWindow(
  manager: EntityManager,
  eventId: string,
  window: Partial<Pick<EventView, 'startedAt' | 'endedAt'>>,
): Promise<void> {
  await manager.query(
    `UPDATE engagement.events SET live_at = COALESCE(live_at, $2), ended_at = COALESCE(ended_at, $3)
      WHERE event_id = $1 AND (live_at IS NULL AND $2::timestamptz IS NOT NULL
                               OR ended_at IS NULL AND $3::timestamptz IS NOT NULL)`,
    [eventId, window.startedAt ?? null, window.endedAt ?? null],
  );
}
