import { Inject, Injectable } from '@nestjs/common';
import type { MessageMeta } from '@townhall/contracts';
import { type Clock, CLOCK, queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { recordLiveWindow } from '../access/event-standing-row.js';
import { Participants } from '../access/participants.js';
import type { LiveWindow } from '../attendance/attendees.js';

/**
 * When an event was live, as the report counts presence (docs/product.md "The report"): from when
 * it went live to when it ended, or to now while it is live; none for an event that never went
 * live (scheduled, cancelled). From engagement.events (townhall.event.started and .ended); an event
 * live or past whose times the projection lacks (projected before it kept them, or from the owners'
 * answer, which does not carry them, with its domain event still on its way) is read from the
 * events service once, and its times kept.
 */
@Injectable()
export class LiveWindows {
  constructor(
    private readonly dataSource: DataSource,
    private readonly participants: Participants,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async of(eventId: string, meta: MessageMeta): Promise<LiveWindow | undefined> {
    const [row] = await queryRows<{ status: string; live_at: Date | null; ended_at: Date | null }>(
      this.dataSource.manager,
      'SELECT status, live_at, ended_at FROM engagement.events WHERE event_id = $1',
      [eventId],
    );
    let liveAt = row?.live_at ?? null;
    let endedAt = row?.ended_at ?? null;
    const status = row?.status;
    if (liveAt === null || (status === 'past' && endedAt === null)) {
      if (status !== 'live' && status !== 'past') return undefined;
      const event = await this.participants.event(eventId, meta);
      await recordLiveWindow(this.dataSource.manager, eventId, event);
      liveAt = event.startedAt === null ? null : new Date(event.startedAt);
      endedAt = event.endedAt === null ? null : new Date(event.endedAt);
      if (liveAt === null) return undefined;
    }
    return { from: liveAt, to: endedAt ?? this.clock() };
  }
}
