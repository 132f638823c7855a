import { DEFAULT_MODERATION, type EventView } from '@townhall/contracts';
import type { EntityManager } from 'typeorm';

/** What engagement.events keeps of an event: who holds which role, its status and its moderation. */
export type EventStanding = Pick<
  EventView,
  'id' | 'hostId' | 'moderators' | 'speakers' | 'status' | 'version' | 'moderation'
>;

/** Records an event's standing unless a newer version of it is recorded already. */
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
}
