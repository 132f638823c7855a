// Events, series and directory cards as lines and tables.
import type { DirectoryCard, EventView, SeriesView, Ticketing } from '@townhall/contracts';
import { formatAmount } from '@townhall/x402';
import { formatDuration, formatInstant } from '../when.js';
import { table } from './table.js';

/**
 * `free`, `0.0025 USDC` or `vip 0.005 USDC, std 0.001 USDC`; with `atomic`, each price's atomic units
 * beside it (`0.0025 USDC (2500)`: what `--price` and `--max-price` take).
 */
export function ticketingSummary(ticketing: Ticketing, options: { atomic?: boolean } = {}): string {
  switch (ticketing.mode) {
    case 'free':
      return 'free';
    case 'single':
      return formatAmount(ticketing.price, ticketing.asset, options);
    case 'tiered':
      // A hidden tier is sold only with a code that unlocks it: the host sees which.
      return ticketing.tiers
        .map(
          (tier) =>
            `${tier.id} ${formatAmount(tier.price, ticketing.asset, options)}${tier.hidden ? ' (hidden)' : ''}`,
        )
        .join(', ');
  }
}

/** `pre: questions wait for approval; 3 reports send an open question back for review`. */
export function moderationSummary(moderation: EventView['moderation']): string {
  const mode =
    moderation.questions === 'pre' ? 'pre: questions wait for approval' : 'post: questions are open at once';
  const reports =
    moderation.reportThreshold === 1 ? '1 report sends' : `${moderation.reportThreshold} reports send`;
  return `${mode}; ${reports} an open question back for review`;
}

/** `open: anyone may RSVP`, or who may when the event is invite only or needs approval. */
export function accessSummary(access: EventView['access']): string {
  switch (access) {
    case 'invite':
      return 'invite: only the agents invited, the host and moderators may RSVP';
    case 'approval':
      return 'approval: an RSVP asks; the host or a moderator approves or declines it';
    case 'open':
      return 'open: anyone may RSVP';
  }
}

function sold(event: EventView): number {
  return Object.values(event.counts.ticketsSold).reduce((sum, count) => sum + count, 0);
}

export function eventTable(events: EventView[]): string[] {
  if (events.length === 0) return ['no events'];
  return table(
    events.map((event) => [
      event.id,
      event.status,
      formatInstant(event.startsAt),
      ticketingSummary(event.ticketing),
      `${sold(event)}/${event.capacity}`,
      event.title,
    ]),
    ['ID', 'STATUS', 'STARTS', 'PRICE', 'SOLD', 'TITLE'],
  );
}

/** One line after a lifecycle change: `<id> live  "AMA"`. */
export function eventLine(event: EventView): string {
  return `${event.id}  ${event.status}  "${event.title}"`;
}

export function eventDetail(event: EventView): string[] {
  const lines = table([
    ['id', event.id],
    ['status', event.status],
    [
      'when',
      `${formatInstant(event.startsAt)} to ${formatInstant(event.endsAt)} (${formatDuration(
        Date.parse(event.endsAt) - Date.parse(event.startsAt),
      )}, ${event.timezone})`,
    ],
    ['host', event.hostId],
    ['moderators', event.moderators.join(', ') || '-'],
    ['speakers', event.speakers.join(', ') || '-'],
    [
      'tickets',
      `${ticketingSummary(event.ticketing, { atomic: true })}; ${sold(event)} of ${event.capacity} taken`,
    ],
    ['access', accessSummary(event.access)],
    ['moderation', moderationSummary(event.moderation)],
    ['questions', String(event.counts.questions)],
    ['polls', String(event.counts.polls)],
    ...(event.seriesId ? [['series', event.seriesId]] : []),
    ...(event.startedAt ? [['started', formatInstant(event.startedAt)]] : []),
    ...(event.endedAt ? [['ended', formatInstant(event.endedAt)]] : []),
    ...(event.cancelledAt ? [['cancelled', formatInstant(event.cancelledAt)]] : []),
  ]).map((line) => `  ${line}`);
  const agenda = event.agenda.map((item) => {
    const offset = item.startOffsetMinutes === undefined ? '' : ` +${item.startOffsetMinutes}m`;
    const length = item.durationMinutes === undefined ? '' : ` (${item.durationMinutes}m)`;
    return `    -${offset} ${item.title}${length}`;
  });
  return [
    event.title,
    ...lines,
    ...(event.description ? ['', ...event.description.split('\n').map((line) => `  ${line}`)] : []),
    ...(agenda.length > 0 ? ['  agenda', ...agenda] : []),
  ];
}

export function cardLines(card: DirectoryCard): string[] {
  return [
    `@${card.handle}${card.displayName ? ` (${card.displayName})` : ''}`,
    ...table([
      ['agentId', card.agentId],
      ...(card.bio ? [['bio', card.bio]] : []),
      ...(card.avatarUrl ? [['avatar', card.avatarUrl]] : []),
      ...(card.links ?? []).map((entry) => ['link', `${entry.label}: ${entry.url}`]),
      ['updated', formatInstant(card.updatedAt)],
    ]).map((line) => `  ${line}`),
  ];
}

export function seriesLines(series: SeriesView): string[] {
  return [
    `series ${series.id}  "${series.title}"`,
    ...table([
      [
        'recurrence',
        `${series.recurrence.rrule} from ${series.recurrence.startsAt} ${series.recurrence.timezone}`,
      ],
      ['duration', formatDuration(series.template.durationMinutes * 60_000)],
      ['tickets', ticketingSummary(series.template.ticketing, { atomic: true })],
      ['followers', String(series.followerCount)],
      ...(series.endedAt ? [['ended', formatInstant(series.endedAt)]] : []),
    ]).map((line) => `  ${line}`),
    '  upcoming',
    ...series.upcoming.map(
      (occurrence) =>
        `    ${formatInstant(occurrence.startsAt)}  ${occurrence.status}  ${occurrence.eventId}`,
    ),
  ];
}

/** `series list`: one row per series, its next occurrence first. */
export function seriesTable(series: SeriesView[]): string[] {
  if (series.length === 0) return ['no series'];
  return table(
    series.map((one) => [
      one.id,
      one.upcoming[0] ? formatInstant(one.upcoming[0].startsAt) : '-',
      one.recurrence.rrule,
      ticketingSummary(one.template.ticketing),
      String(one.followerCount),
      one.title,
    ]),
    ['ID', 'NEXT', 'RULE', 'PRICE', 'FOLLOWERS', 'TITLE'],
  );
}
