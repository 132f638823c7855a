// Human output: short lines and aligned tables of the product's resources. `--json` bypasses all of it.
import type {
  AccessRequestView,
  BalanceView,
  BlockView,
  CodeView,
  DirectoryCard,
  EventView,
  InvitesAdded,
  InviteView,
  LedgerEntryView,
  PollView,
  QuestionView,
  RecordingView,
  SeriesView,
  StageMessageView,
  Ticketing,
  TicketView,
  WaitlistEntryView,
} from '@townhall/contracts';
import type { LiveEvent } from '@townhall/sdk';
import { formatDuration, formatInstant } from './when.js';

/** Rows as aligned columns (two spaces apart); the last column is never padded. */
/** A page's rows, then how to ask for the next page when there is one. */
export function pageLines<T>(
  page: { items: T[]; nextCursor: string | null },
  rows: (items: T[]) => string[],
): string[] {
  return [...rows(page.items), ...(page.nextCursor ? [`more: --cursor ${page.nextCursor}`] : [])];
}

export function table(rows: string[][], headers?: string[]): string[] {
  const all = headers ? [headers, ...rows] : rows;
  const widths: number[] = [];
  for (const row of all)
    row.forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, cell.length);
    });
  return all.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** `2500 USDC` (atomic units, as the API counts them). */
export function money(amount: string, asset: string | null | undefined): string {
  return asset ? `${amount} ${asset}` : amount;
}

export function ticketingSummary(ticketing: Ticketing): string {
  switch (ticketing.mode) {
    case 'free':
      return 'free';
    case 'single':
      return money(ticketing.price, ticketing.asset);
    case 'tiered':
      // A hidden tier is sold only with a code that unlocks it: the host sees which.
      return ticketing.tiers
        .map((tier) => `${tier.id} ${money(tier.price, ticketing.asset)}${tier.hidden ? ' (hidden)' : ''}`)
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
    ['tickets', `${ticketingSummary(event.ticketing)}; ${sold(event)} of ${event.capacity} taken`],
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

/** `ticket t1  active  tier general  750 USDC  event e1`, and `  code SPRING25` when bought with one. */
export function ticketLine(ticket: TicketView): string {
  const price = ticket.price === '0' ? 'free' : money(ticket.price, ticket.asset);
  const code = ticket.code ? `  code ${ticket.code}` : '';
  return `ticket ${ticket.id}  ${ticket.status}  tier ${ticket.tierId}  ${price}  event ${ticket.eventId}${code}`;
}

/**
 * Tickets as a table: with the event of each (`tickets mine`) or its holder (`tickets attendees`);
 * with a CODE column when a ticket was bought with a host's code (its PRICE is what was paid).
 */
export function ticketTable(tickets: TicketView[], show: 'event' | 'holder'): string[] {
  if (tickets.length === 0) return ['no tickets'];
  const codes = tickets.some((ticket) => ticket.code);
  return table(
    tickets.map((ticket) => [
      ticket.id,
      ticket.status,
      ticket.tierId,
      ticket.price === '0' ? 'free' : money(ticket.price, ticket.asset),
      ...(codes ? [ticket.code ?? '-'] : []),
      formatInstant(ticket.createdAt),
      show === 'event' ? ticket.eventId : ticket.holderId,
    ]),
    [
      'TICKET',
      'STATUS',
      'TIER',
      'PRICE',
      ...(codes ? ['CODE'] : []),
      'SINCE',
      show === 'event' ? 'EVENT' : 'HOLDER',
    ],
  );
}

/** Where a waitlist entry stands: `waiting (#3)`, `offered until 2027-03-04 19:05 UTC`, `accepted`. */
export function waitlistStatus(entry: WaitlistEntryView): string {
  if (entry.status === 'waiting') return entry.position === null ? 'waiting' : `waiting (#${entry.position})`;
  if (entry.status === 'offered') return `offered until ${formatInstant(entry.offerExpiresAt)}`;
  return entry.status;
}

export function waitlistLine(entry: WaitlistEntryView): string {
  return `waitlist ${entry.id}  ${waitlistStatus(entry)}  tier ${entry.tierId}  event ${entry.eventId}`;
}

export function waitlistTable(entries: WaitlistEntryView[]): string[] {
  if (entries.length === 0) return ['not in any waitlist'];
  return table(
    entries.map((entry) => [
      entry.id,
      waitlistStatus(entry),
      entry.tierId,
      formatInstant(entry.createdAt),
      entry.eventId,
    ]),
    ['ENTRY', 'STATUS', 'TIER', 'SINCE', 'EVENT'],
  );
}

/** Questions as a table; with a REPORTS column when the read shows reports (moderators, host). */
export function questionTable(questions: QuestionView[]): string[] {
  if (questions.length === 0) return ['no questions'];
  const reports = questions.some((question) => question.reports !== undefined);
  return table(
    questions.map((question) => [
      question.id,
      question.state,
      String(question.upvotes),
      ...(reports ? [String(question.reports ?? '-')] : []),
      question.body,
    ]),
    ['ID', 'STATE', 'UPVOTES', ...(reports ? ['REPORTS'] : []), 'QUESTION'],
  );
}

export function questionLine(question: QuestionView): string {
  const votes = `${question.upvotes} upvote${question.upvotes === 1 ? '' : 's'}`;
  const reports =
    question.reports === undefined ? '' : `  ${question.reports} report${question.reports === 1 ? '' : 's'}`;
  return `question ${question.id}  ${question.state}  ${votes}${reports}  "${question.body}"`;
}

/** `agent-b blocked in e1 by host (2027-03-04 19:05 UTC)`, or `agent-b not blocked in e1`. */
export function blockLine(block: BlockView): string {
  if (!block.blocked) return `${block.agentId} not blocked in ${block.eventId}`;
  const when = block.blockedAt ? ` (${formatInstant(block.blockedAt)})` : '';
  return `${block.agentId} blocked in ${block.eventId} by ${block.blockedBy ?? '?'}${when}`;
}

export function blockTable(blocks: BlockView[]): string[] {
  if (blocks.length === 0) return ['nobody is blocked'];
  return table(
    blocks.map((block) => [
      block.agentId,
      block.blockedBy ?? '-',
      block.blockedAt ? formatInstant(block.blockedAt) : '-',
    ]),
    ['AGENT', 'BLOCKED BY', 'SINCE'],
  );
}

/** `agent-b invited to e1 by host (2027-03-04 19:05 UTC)`. */
export function inviteLine(invite: InviteView): string {
  return `${invite.agentId} invited to ${invite.eventId} by ${invite.invitedBy} (${formatInstant(invite.invitedAt)})`;
}

export function inviteTable(invites: InviteView[]): string[] {
  if (invites.length === 0) return ['nobody is invited'];
  return table(
    invites.map((invite) => [invite.agentId, invite.invitedBy, formatInstant(invite.invitedAt)]),
    ['AGENT', 'INVITED BY', 'SINCE'],
  );
}

/** `invites add`: how many the call invited, then every agent it named. */
export function invitesAddedLines(result: InvitesAdded): string[] {
  const before = result.invites.length - result.added;
  return [
    `${result.added} invited now${before > 0 ? `, ${before} invited before` : ''}`,
    ...inviteTable(result.invites),
  ];
}

/**
 * `agent-b asked to come to e1 (2027-03-04 19:05 UTC): approved by host (2027-03-04 19:10 UTC),
 * seat held until 2027-03-04 19:25 UTC`; the tier when it names one.
 */
export function requestLine(request: AccessRequestView): string {
  const tier = request.tierId === null ? '' : `, tier ${request.tierId}`;
  const asked = `${request.agentId} asked to come to ${request.eventId}${tier} (${formatInstant(request.requestedAt)})`;
  if (request.status === 'requested') return `${asked}: not decided yet`;
  const when = request.decidedAt === null ? '' : ` (${formatInstant(request.decidedAt)})`;
  const hold =
    request.status === 'approved' && request.holdExpiresAt !== null
      ? `, seat held until ${formatInstant(request.holdExpiresAt)}`
      : '';
  return `${asked}: ${request.status} by ${request.decidedBy ?? '-'}${when}${hold}`;
}

export function requestTable(requests: AccessRequestView[]): string[] {
  if (requests.length === 0) return ['nobody has asked to come'];
  return table(
    requests.map((request) => [
      request.agentId,
      request.status,
      request.tierId ?? '-',
      formatInstant(request.requestedAt),
      request.decidedBy ?? '-',
      request.holdExpiresAt === null ? '-' : formatInstant(request.holdExpiresAt),
    ]),
    ['AGENT', 'STATUS', 'TIER', 'ASKED', 'DECIDED BY', 'SEAT HELD UNTIL'],
  );
}

/**
 * An RSVP answered with the agent's request to come (an event that needs approval): where it
 * stands and what to do next. Nothing was charged.
 */
export function rsvpRequestLines(request: AccessRequestView): string[] {
  if (request.status === 'approved')
    return [
      request.holdExpiresAt === null
        ? 'approved: rsvp again for your ticket'
        : `approved: rsvp again to pay until ${formatInstant(request.holdExpiresAt)} (your seat is held until then)`,
      requestLine(request),
    ];
  if (request.status === 'declined') return ['the host declined your request to come', requestLine(request)];
  return [
    "request sent: waiting for the host's approval (nothing was charged; rsvp again once approved)",
    requestLine(request),
  ];
}

/** What a code takes off: `25% off`, `500 off` (atomic units), `free`, or `-` (it only unlocks tiers). */
export function codeDiscount(code: CodeView): string {
  if (code.free) return 'free';
  if (code.percentOff !== null) return `${code.percentOff}% off`;
  if (code.amountOff !== null) return `${code.amountOff} off`;
  return '-';
}

/** `2/5` tickets carry it of at most 5; `2/unlimited` without a limit. */
function codeUses(code: CodeView): string {
  return `${code.uses}/${code.maxUses ?? 'unlimited'}`;
}

/**
 * `code SPRING25 for e1: 25% off, tiers general, 2/5 used, expires 2027-03-04 19:00 UTC`; the
 * hidden tiers it unlocks when it does.
 */
export function codeLine(code: CodeView): string {
  const discount = codeDiscount(code);
  return [
    `code ${code.code} for ${code.eventId}: ${discount === '-' ? 'no discount' : discount}`,
    `tiers ${code.tierIds === null ? 'all it may buy' : code.tierIds.join(',')}`,
    ...(code.unlocksTierIds.length > 0 ? [`unlocks ${code.unlocksTierIds.join(',')}`] : []),
    `${codeUses(code)} used`,
    code.expiresAt === null ? 'never expires' : `expires ${formatInstant(code.expiresAt)}`,
  ].join(', ');
}

export function codeTable(codes: CodeView[]): string[] {
  if (codes.length === 0) return ['no codes'];
  return table(
    codes.map((code) => [
      code.code,
      codeDiscount(code),
      codeUses(code),
      code.tierIds === null ? 'all' : code.tierIds.join(','),
      code.unlocksTierIds.length === 0 ? '-' : code.unlocksTierIds.join(','),
      code.expiresAt === null ? 'never' : formatInstant(code.expiresAt),
    ]),
    ['CODE', 'DISCOUNT', 'USES', 'TIERS', 'UNLOCKS', 'EXPIRES'],
  );
}

export function pollLines(poll: PollView): string[] {
  const kind = poll.multiple ? 'multiple choice' : 'single choice';
  const ballots =
    poll.ballots === null
      ? 'results after closing'
      : `${poll.ballots} ballot${poll.ballots === 1 ? '' : 's'}`;
  const options = table(
    poll.options.map((option, index) => [
      `${index + 1}.`,
      option.label,
      option.votes === null ? '-' : `${option.votes} vote${option.votes === 1 ? '' : 's'}`,
      option.id,
    ]),
  ).map((line) => `  ${line}`);
  return [`poll ${poll.id}  ${poll.status}  "${poll.question}" (${kind}, ${ballots})`, ...options];
}

/** The placeholder for the text of a stage message a moderator hid. */
const HIDDEN_MESSAGE = '[hidden by a moderator]';

export function stageLine(message: StageMessageView): string {
  const time = message.createdAt.slice(11, 19);
  // A hidden message keeps its sequence, so a gap never appears where it was.
  const text = message.hidden || message.body === null ? HIDDEN_MESSAGE : message.body;
  const body = message.kind === 'question' ? `[question] ${text}` : text;
  return `#${message.sequence} ${time} ${message.authorId}: ${body}`;
}

/** Ledger entries; with a CODE column when a ticket's payment among them was bought with a host's code. */
export function ledgerTable(entries: LedgerEntryView[]): string[] {
  if (entries.length === 0) return ['no ledger entries'];
  const codes = entries.some((entry) => entry.code);
  return table(
    entries.map((entry) => [
      formatInstant(entry.createdAt),
      entry.type,
      money(entry.amount.startsWith('-') ? entry.amount : `+${entry.amount}`, entry.asset),
      ...(codes ? [entry.code ?? '-'] : []),
      entry.eventId ? `event ${entry.eventId}` : '',
      entry.id,
    ]),
    ['WHEN', 'TYPE', 'AMOUNT', ...(codes ? ['CODE'] : []), 'EVENT', 'ENTRY'],
  );
}

export function balanceLines(balance: BalanceView): string[] {
  if (balance.balances.length === 0) return ['no balance (0)'];
  return balance.balances.map((entry) => money(entry.amount, entry.asset));
}

export function recordingLines(recording: RecordingView): string[] {
  const { transcript } = recording;
  return [
    `recording of ${recording.eventId}  ${recording.published ? `published ${formatInstant(recording.publishedAt)}` : 'draft (not published)'}`,
    ...(recording.summary ? [`  summary: ${recording.summary}`] : []),
    ...(recording.mediaUrl ? [`  media: ${recording.mediaUrl}`] : []),
    `  attendance: ${transcript.attendance.ticketsIssued} tickets, ${transcript.attendance.attendees.length} attendees`,
    `  stage (${transcript.stage.length} messages)`,
    ...transcript.stage.map((message) => `    ${stageLine(message)}`),
    `  questions (${transcript.questions.length})`,
    ...transcript.questions.map((question) => `    ${question.state} ${question.upvotes}  ${question.body}`),
    `  polls (${transcript.polls.length})`,
    ...transcript.polls.map(
      (poll) =>
        `    "${poll.question}": ${poll.options.map((option) => `${option.label} ${option.votes ?? '-'}`).join(', ')}`,
    ),
    ...(recording.nextCursor ? [`more: --cursor ${recording.nextCursor}`] : []),
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
      ['tickets', ticketingSummary(series.template.ticketing)],
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

/** One line per message of the live stream (`stage tail`). */
export function liveLine({ type, event }: LiveEvent): string {
  const data = event.data as Record<string, unknown>;
  // A ticket, refund, waitlist entry, invite or request on an anonymous stream: what changed, not whose.
  if (/^townhall\.(ticket|refund|waitlist|invite|request)\./.test(type) && isCountChange(data))
    return `* ${type.slice('townhall.'.length)}: ${countsLine(data)}`;
  switch (type) {
    // `hidden`: the message again, with `hidden: true` and no body (the line of that sequence, without its text).
    case 'townhall.stage.posted':
    case 'townhall.stage.hidden':
      return stageLine(data as unknown as StageMessageView);
    case 'townhall.question.submitted': {
      const question = data as unknown as QuestionView;
      return `? question ${question.id} from ${question.authorId}: ${question.body}`;
    }
    case 'townhall.question.upvoted':
    case 'townhall.question.approved':
    case 'townhall.question.promoted':
    case 'townhall.question.answered':
    case 'townhall.question.dismissed':
    case 'townhall.question.withdrawn': {
      const question = data as unknown as QuestionView;
      return `? ${questionLine(question)}`;
    }
    case 'townhall.question.held':
      return `? held for review: ${questionLine(data as unknown as QuestionView)}`;
    case 'townhall.question.reported': {
      // Moderators' stream only (visibility `staff`).
      const report = data as unknown as { question: QuestionView; reporterId: string; reason: string | null };
      const reason = report.reason === null ? '' : ` (${report.reason})`;
      return `? reported by ${report.reporterId}${reason}: ${questionLine(report.question)}`;
    }
    case 'townhall.participant.blocked':
    case 'townhall.participant.unblocked':
      return `* ${blockLine(data as unknown as BlockView)}`;
    case 'townhall.poll.opened':
    case 'townhall.poll.voted':
    case 'townhall.poll.closed':
      return pollLines(data as unknown as PollView)
        .map((line, index) => (index === 0 ? `% ${line}` : `  ${line}`))
        .join('\n');
    case 'townhall.event.scheduled':
    case 'townhall.event.started':
    case 'townhall.event.ended':
    case 'townhall.event.cancelled':
    case 'townhall.event.updated':
    case 'townhall.event.starting_soon':
      return `* ${type.slice('townhall.event.'.length)}: ${eventLine(data as unknown as EventView)}`;
    case 'townhall.ticket.issued':
    case 'townhall.ticket.cancelled':
      return `* ${type.slice('townhall.'.length)}: ${ticketLine(data as unknown as TicketView)}`;
    case 'townhall.waitlist.joined':
    case 'townhall.waitlist.offered':
    case 'townhall.waitlist.accepted':
    case 'townhall.waitlist.expired':
    case 'townhall.waitlist.left':
      return `* ${type.slice('townhall.'.length)}: ${waitlistLine(data as unknown as WaitlistEntryView)}`;
    case 'townhall.invite.added':
    case 'townhall.invite.removed':
      return `* ${type.slice('townhall.'.length)}: ${inviteLine(data as unknown as InviteView)}`;
    case 'townhall.request.requested':
    case 'townhall.request.approved':
    case 'townhall.request.declined':
      return `* ${type.slice('townhall.'.length)}: ${requestLine(data as unknown as AccessRequestView)}`;
    case 'townhall.recording.published':
      return `* recording published: ${(data as unknown as RecordingView).summary ?? ''}`.trimEnd();
    default:
      return `* ${type}`;
  }
}

/** The `data` of a ticket, refund, waitlist, invite or request message on an anonymous live stream. */
interface CountChange {
  tierId: string | null;
  counts: Record<string, number>;
}

function isCountChange(data: Record<string, unknown>): data is Record<string, unknown> & CountChange {
  return typeof data['counts'] === 'object' && data['counts'] !== null && !('id' in data);
}

/** `tier general  tickets +1`: each count with its sign. */
function countsLine({ tierId, counts }: CountChange): string {
  const changes = Object.entries(counts).map(([name, n]) => `${name} ${n > 0 ? `+${n}` : n}`);
  return [...(tierId === null ? [] : [`tier ${tierId}`]), ...changes].join('  ');
}
