// `townhall report <eventId>` in a terminal: the numbers, then small charts of them.
import type { EventReport } from '@townhall/contracts';
import { formatAmount } from '@townhall/x402';
import { table } from '../render/table.js';
import { formatInstant } from '../when.js';
import { bar, clip, printable, sparkline } from './terminal-charts.js';

type Money = EventReport['revenue'][number];
type Attendee = EventReport['attendance']['byAgent'][number];

/** `0.0065 USDC (ledger)`, one per asset and network; `none` for none. */
export function moneyList(amounts: readonly Money[]): string {
  if (amounts.length === 0) return 'none';
  return amounts
    .map(
      (entry) =>
        `${formatAmount(entry.amount, printable(entry.asset))} (${printable(entry.network ?? 'ledger')})`,
    )
    .join(', ');
}

/** `@ada`, or the agentId of an agent without a card. */
export function attendeeName(attendee: Pick<Attendee, 'agentId' | 'handle'>): string {
  return attendee.handle ? `@${attendee.handle}` : attendee.agentId;
}

/** Minutes to a tenth: `42.5`. */
export function minutes(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/** Percent of the ballots, whole: a poll of several choices adds up to more than 100. */
export function percentOf(votes: number, ballots: number): string {
  return `${ballots > 0 ? Math.round((votes / ballots) * 100) : 0}%`;
}

/** One line for a model or a log: what the report says, in short. */
export function reportSummary(report: EventReport): string {
  const { registrations, attendance, questions, polls, stage } = report;
  return (
    `Report of ${report.eventId} (${report.status}): ${registrations.total} registration${registrations.total === 1 ? '' : 's'}, ` +
    `revenue ${moneyList(report.revenue)}, ${report.refunds.count} refund${report.refunds.count === 1 ? '' : 's'}; ` +
    `${attendance.present} present, peak ${attendance.peakConcurrent} viewers at once; ` +
    `${questions.asked} question${questions.asked === 1 ? '' : 's'}, ${polls.length} poll${polls.length === 1 ? '' : 's'}, ` +
    `${stage.messages} stage message${stage.messages === 1 ? '' : 's'}.`
  );
}

/** A series over time as a sparkline, with its span; a note when there is nothing yet. */
function overTime(
  title: string,
  points: ReadonlyArray<{ at: string; value: number }>,
  last: string,
): string[] {
  if (points.length === 0) return [title, '  no data yet'];
  const span =
    points.length === 1
      ? formatInstant(points[0]!.at)
      : `${formatInstant(points[0]!.at)} to ${formatInstant(points.at(-1)!.at)}`;
  return [
    `${title} (${points.length} point${points.length === 1 ? '' : 's'}, ${span})`,
    `  ${sparkline(points.map((point) => point.value))}  ${last}`,
  ];
}

/** Rows of `label  bar  value`, the bars against the largest value. */
function bars(rows: ReadonlyArray<{ label: string; value: number; note?: string }>, indent = '  '): string[] {
  const max = Math.max(0, ...rows.map((row) => row.value));
  return table(
    rows.map((row) => [
      row.label,
      bar(row.value, max, 24).padEnd(24),
      `${row.value}${row.note ? `  ${row.note}` : ''}`,
    ]),
  ).map((line) => `${indent}${line}`);
}

/** The report as a person reads it in a terminal; `title` is the event's, when known. */
export function reportLines(report: EventReport, title?: string): string[] {
  const { registrations, attendance, questions, polls } = report;
  const tiers = Object.entries(registrations.byTier);
  const viewers = attendance.viewersOverTime.map((point) => ({ at: point.at, value: point.viewers }));
  const peak = Math.max(0, ...viewers.map((point) => point.value));
  return [
    `${title ? `"${printable(title)}" ` : ''}${report.eventId}: ${report.status}, report of ${formatInstant(report.generatedAt)}`,
    ...table([
      ['registrations', String(registrations.total)],
      ['revenue', moneyList(report.revenue)],
      [
        'refunds',
        `${report.refunds.count}${report.refunds.count > 0 ? `: ${moneyList(report.refunds.amounts)}` : ''}`,
      ],
      ['codes', report.codes.map((code) => `${printable(code.code)} ×${code.uses}`).join(', ') || 'none'],
      ['attendance', `${attendance.present} present, peak ${attendance.peakConcurrent} viewers at once`],
      ['questions', `${questions.asked} asked, ${questions.promoted} promoted, ${questions.upvotes} upvotes`],
      ['polls', String(polls.length)],
      ['stage', `${report.stage.messages} messages`],
    ]).map((line) => `  ${line}`),
    '',
    ...overTime(
      'registrations over time',
      registrations.overTime.map((point) => ({ at: point.at, value: point.total })),
      String(registrations.overTime.at(-1)?.total ?? 0),
    ),
    '',
    ...overTime('viewers over time', viewers, `peak ${peak}`),
    '',
    'tickets by tier',
    ...(tiers.length === 0
      ? ['  none']
      : bars(tiers.map(([tier, count]) => ({ label: printable(tier), value: count })))),
    '',
    'top questions',
    ...(questions.top.length === 0
      ? ['  none']
      : bars(
          questions.top.map((question) => ({
            label: clip(printable(question.body), 48),
            value: question.upvotes,
            note: question.state,
          })),
        )),
    '',
    'polls',
    ...(polls.length === 0
      ? ['  none']
      : polls.flatMap((poll) => [
          `  ${printable(poll.question)} (${poll.status}, ${poll.ballots} ballot${poll.ballots === 1 ? '' : 's'})`,
          ...bars(
            poll.options.map((option) => ({
              label: clip(printable(option.label), 32),
              value: option.votes,
              note: percentOf(option.votes, poll.ballots),
            })),
            '    ',
          ),
        ])),
    '',
    'attendance',
    ...(attendance.byAgent.length === 0
      ? ['  nobody seen yet']
      : table(
          attendance.byAgent.map((attendee) => [
            printable(attendeeName(attendee)),
            minutes(attendee.minutes),
            formatInstant(attendee.firstSeenAt),
            formatInstant(attendee.lastSeenAt),
          ]),
          ['AGENT', 'MINUTES', 'FIRST SEEN', 'LAST SEEN'],
        ).map((line) => `  ${line}`)),
  ];
}
