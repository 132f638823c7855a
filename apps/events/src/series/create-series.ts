import { Inject, Injectable } from '@nestjs/common';
import {
  DEFAULT_MODERATION,
  DEFAULT_OFFER_MINUTES,
  DomainError,
  parseOrThrow,
  SeriesTopics,
  type CreateSeries as NewSeries,
  type SeriesView,
} from '@townhall/contracts';
import { CLOCK, OutboxWriter, queryRows, SETTINGS, type Clock } from '@townhall/platform/service';
import { z } from 'zod';
import { checkEventRules } from '../events/event-rules.js';
import { requireRoomFor } from '../events/host-limits.js';
import type { EventsSettings } from '../settings.js';
import { extensionDue, firstOccurrences, plannedOccurrences, RecurrenceSchema } from './recurrence.js';
import { normaliseRrule } from './rrule.js';
import { SeriesBook } from './series-book.js';
import { SERIES_COLUMNS, toSeriesView, type SeriesRow } from './series-row.js';

const RecurrenceField = z.strictObject({ recurrence: RecurrenceSchema });

/** How far back a new series may start. */
const MAX_PAST_START_MS = 7 * 86_400_000;

/**
 * An agent creates a recurring series (docs/product.md "Series") and hosts it: the rule is checked
 * and stored normalised, the template passes every event rule at the first occurrence, the host has
 * room for one more (SERIES_PER_HOST_LIMIT), and the occurrences up to the horizon are created with it.
 */
@Injectable()
export class CreateSeries {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly book: SeriesBook,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SETTINGS) private readonly settings: EventsSettings,
  ) {}

  async create(hostId: string, input: NewSeries): Promise<SeriesView> {
    const { recurrence } = parseOrThrow(RecurrenceField, { recurrence: input.recurrence });
    const stored = { ...recurrence, rrule: normaliseRrule(recurrence.rrule) };
    const now = this.clock();
    // A series starts now or later (at most a week back, for a series created after its first
    // morning): expanding one that began centuries ago would count every occurrence since.
    const [start] = firstOccurrences(stored, 1);
    if (start && start.startsAt.getTime() < now.getTime() - MAX_PAST_START_MS) {
      throw new DomainError(
        'validation.failed',
        'recurrence.startsAt: must not be more than 7 days in the past',
        [{ field: 'recurrence.startsAt', message: 'must not be more than 7 days in the past' }],
      );
    }
    const planned = plannedOccurrences(stored, now);
    if (planned.length === 0) {
      throw new DomainError('validation.failed', 'recurrence: the rule has no upcoming occurrence', [
        { field: 'recurrence.rrule', message: 'the rule has no upcoming occurrence' },
      ]);
    }
    const { template } = input;
    const first = planned[0]!.startsAt;
    checkEventRules(
      {
        title: input.title,
        description: input.description,
        agenda: template.agenda,
        startsAt: first.toISOString(),
        endsAt: new Date(first.getTime() + template.durationMinutes * 60_000).toISOString(),
        timezone: stored.timezone,
        capacity: template.capacity,
        moderators: template.moderators,
        speakers: template.speakers,
        ticketing: template.ticketing,
        moderation: DEFAULT_MODERATION,
        offerMinutes: DEFAULT_OFFER_MINUTES,
        access: template.access,
      },
      hostId,
      now,
      { requireFuture: false },
    );

    const seriesId = await this.outbox.run(async (manager) => {
      await requireRoomFor(manager, 'series', hostId, this.settings.hostLimits.series);
      const [row] = await queryRows<SeriesRow>(
        manager,
        `INSERT INTO events.series (title, description, host_id, recurrence, template, extend_due_at)
         VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6) RETURNING ${SERIES_COLUMNS}`,
        [
          input.title,
          input.description,
          hostId,
          JSON.stringify(stored),
          JSON.stringify(template),
          extensionDue(stored, planned, now),
        ],
      );
      const created = await this.book.materialize(manager, row!, planned);
      const view = toSeriesView(
        row!,
        0,
        created.slice(0, 10).map((event) => ({
          eventId: event.id,
          startsAt: event.starts_at.toISOString(),
          status: event.status,
        })),
      );
      await this.outbox.announce(manager, [{ type: SeriesTopics.created, subject: row!.id, data: view }]);
      return row!.id;
    });
    return this.book.view(seriesId);
  }
}
