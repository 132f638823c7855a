import { Injectable } from '@nestjs/common';
import type { EventAccess } from '@townhall/contracts';
import { EventBook } from './event-book.js';

/** The role query other services ask before letting an agent act in an event (`events.event.access`). */
@Injectable()
export class GetEventAccess {
  constructor(private readonly book: EventBook) {}

  async access(eventId: string, agentId: string): Promise<EventAccess> {
    const row = await this.book.find(eventId);
    const role =
      row.host_id === agentId
        ? 'host'
        : row.moderators.includes(agentId)
          ? 'moderator'
          : row.speakers.includes(agentId)
            ? 'speaker'
            : null;
    return {
      eventId: row.id,
      status: row.status,
      hostId: row.host_id,
      role,
      startsAt: row.starts_at.toISOString(),
      endsAt: row.ends_at.toISOString(),
      capacity: row.capacity,
      ticketing: row.ticketing,
      moderation: row.moderation,
      offerMinutes: row.offer_minutes,
      access: row.access,
      moderators: row.moderators,
      speakers: row.speakers,
      seriesId: row.series_id,
      version: row.version,
      updatedAt: row.updated_at.toISOString(),
    };
  }
}
