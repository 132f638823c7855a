// `townhall report <eventId> --html <file>`: the report as one HTML page to keep, mail or open
// offline. Self-contained: inline CSS and SVG, no script, nothing fetched (its Content-Security-Policy
// forbids it), light or dark as the reader's system prefers. Every string a person wrote (the
// title, questions, poll options, handles, codes, tiers) is escaped.
import type { EventReport } from '@townhall/contracts';
import { formatInstant } from '../when.js';
import { attendeeName, minutes, moneyList, percentOf } from './report-lines.js';
import { barChart, escapeHtml, lineChart } from './svg-charts.js';

/** Nothing but the page's own inline styles: no script, image, font or connection of any kind. */
export const REPORT_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

const STYLE = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --rule: #d1d9e0; --panel: #f6f8fa;
  --line: #0969da; --area: rgba(9, 105, 218, 0.14); --bar: #1a7f37;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --rule: #3d444d; --panel: #151b23;
    --line: #4493f8; --area: rgba(68, 147, 248, 0.2); --bar: #3fb950;
  }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 720px; padding: 24px 16px 48px; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 1.6em; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 1.15em; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--rule); }
h3 { font-size: 1em; margin: 16px 0 4px; overflow-wrap: anywhere; }
.meta, .empty, .note { color: var(--muted); }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 8px; margin: 16px 0 0; }
.figures div { background: var(--panel); border: 1px solid var(--rule); border-radius: 6px; padding: 8px 12px; }
.figures dt { color: var(--muted); font-size: 0.85em; }
.figures dd { margin: 0; font-size: 1.25em; font-weight: 600; overflow-wrap: anywhere; }
svg.chart { display: block; width: 100%; height: auto; }
svg.chart text { fill: var(--muted); font: 12px system-ui, sans-serif; }
svg.chart text.label { fill: var(--fg); }
svg.chart .grid { stroke: var(--rule); stroke-width: 1; }
svg.chart .line { fill: none; stroke: var(--line); stroke-width: 2; stroke-linejoin: round; }
svg.chart .area { fill: var(--area); }
svg.chart .point { fill: var(--line); }
svg.chart .bar { fill: var(--bar); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--rule); overflow-wrap: anywhere; }
th { color: var(--muted); font-weight: 500; font-size: 0.9em; white-space: nowrap; overflow-wrap: normal; }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
ol.questions li { margin: 4px 0; overflow-wrap: anywhere; }
@media print { body { max-width: none; } h2 { break-after: avoid; } svg.chart { break-inside: avoid; } }
`;

const h = escapeHtml;

/** A table; every cell is escaped here, numbers right-aligned. */
function htmlTable(headers: string[], rows: string[][], numeric: number[] = []): string {
  const cell = (tag: string, text: string, column: number) =>
    `<${tag}${numeric.includes(column) ? ' class="number"' : ''}>${h(text)}</${tag}>`;
  return [
    '<table>',
    ...(headers.some(Boolean)
      ? [`<thead><tr>${headers.map((text, column) => cell('th', text, column)).join('')}</tr></thead>`]
      : []),
    '<tbody>',
    ...rows.map((row) => `<tr>${row.map((text, column) => cell('td', text, column)).join('')}</tr>`),
    '</tbody></table>',
  ].join('\n');
}

function figure(label: string, value: string): string {
  return `<div><dt>${h(label)}</dt><dd>${h(value)}</dd></div>`;
}

export interface ReportPageOptions {
  /** The event's title, when known. */
  title?: string;
}

/** The whole page. */
export function reportHtml(report: EventReport, options: ReportPageOptions = {}): string {
  const { registrations, attendance, questions, polls } = report;
  const heading = options.title ?? `Event ${report.eventId}`;
  const tiers = Object.entries(registrations.byTier);
  const sections = [
    `<header><h1>${h(heading)}</h1>`,
    `<p class="meta">Report of event <code>${h(report.eventId)}</code>, ${h(report.status)}, made ${h(formatInstant(report.generatedAt))}.</p>`,
    '<dl class="figures">',
    figure('Registrations', String(registrations.total)),
    figure('Present', String(attendance.present)),
    figure('Peak viewers', String(attendance.peakConcurrent)),
    figure('Questions', String(questions.asked)),
    figure('Polls', String(polls.length)),
    figure('Stage messages', String(report.stage.messages)),
    '</dl></header>',

    '<section id="registrations"><h2>Registrations over time</h2>',
    lineChart({
      name: 'registrations',
      label: 'Tickets issued over time',
      points: registrations.overTime.map((point) => ({ at: point.at, value: point.total })),
      area: true,
    }),
    '</section>',

    '<section id="viewers"><h2>Viewers over time</h2>',
    lineChart({
      name: 'viewers',
      label: 'Live streams open over time',
      points: attendance.viewersOverTime.map((point) => ({ at: point.at, value: point.viewers })),
    }),
    '</section>',

    '<section id="tiers"><h2>Tickets by tier</h2>',
    barChart({
      name: 'tiers',
      label: 'Tickets by tier',
      bars: tiers.map(([tier, count]) => ({ label: tier, value: count })),
    }),
    '</section>',

    '<section id="sales"><h2>Sales</h2>',
    htmlTable(
      [],
      [
        ['Revenue (before refunds)', moneyList(report.revenue)],
        [
          'Refunds',
          `${report.refunds.count}${report.refunds.count > 0 ? `: ${moneyList(report.refunds.amounts)}` : ''}`,
        ],
      ],
    ),
    report.codes.length === 0
      ? '<p class="empty">No codes.</p>'
      : htmlTable(
          ['Code', 'Uses'],
          report.codes.map((code) => [code.code, String(code.uses)]),
          [1],
        ),
    '</section>',

    '<section id="questions"><h2>Top questions</h2>',
    `<p class="note">${questions.asked} asked, ${questions.promoted} promoted to the stage, ${questions.upvotes} upvotes.</p>`,
    barChart({
      name: 'questions',
      label: 'Upvotes of the top questions',
      labelLength: 30,
      bars: questions.top.map((question, at) => ({
        label: `${at + 1}. ${question.body}`,
        value: question.upvotes,
        note: question.state,
      })),
    }),
    questions.top.length === 0
      ? ''
      : `<ol class="questions">${questions.top
          .map(
            (question) =>
              `<li>${h(question.body)} <span class="note">(${question.upvotes} upvote${question.upvotes === 1 ? '' : 's'}, ${h(question.state)})</span></li>`,
          )
          .join('')}</ol>`,
    '</section>',

    '<section id="polls"><h2>Polls</h2>',
    ...(polls.length === 0
      ? ['<p class="empty">No polls.</p>']
      : polls.flatMap((poll) => [
          `<h3>${h(poll.question)}</h3>`,
          `<p class="note">${h(poll.status)}, ${poll.ballots} ballot${poll.ballots === 1 ? '' : 's'}</p>`,
          barChart({
            name: 'poll',
            label: `Votes: ${poll.question}`,
            bars: poll.options.map((option) => ({
              label: option.label,
              value: option.votes,
              note: percentOf(option.votes, poll.ballots),
            })),
          }),
        ])),
    '</section>',

    '<section id="attendance"><h2>Attendance</h2>',
    `<p class="note">${attendance.present} ticket holder${attendance.present === 1 ? '' : 's'} present; at most ${attendance.peakConcurrent} live streams open at once.</p>`,
    attendance.byAgent.length === 0
      ? '<p class="empty">Nobody seen yet.</p>'
      : htmlTable(
          ['Agent', 'Minutes', 'First seen', 'Last seen'],
          attendance.byAgent.map((attendee) => [
            attendeeName(attendee),
            minutes(attendee.minutes),
            formatInstant(attendee.firstSeenAt),
            formatInstant(attendee.lastSeenAt),
          ]),
          [1],
        ),
    '</section>',
  ];
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${h(REPORT_PAGE_CSP)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<title>${h(`Report: ${heading}`)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    ...sections.filter((part) => part !== ''),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
