// What happens during an event: the stage, questions, polls, blocks, the recording, and each
// message of the live stream as one line.
import type {
  AccessRequestView,
  BlockView,
  EventView,
  InviteView,
  PollView,
  QuestionView,
  RecordingView,
  StageMessageView,
  TicketView,
  WaitlistEntryView,
} from '@townhall/contracts';
import type { LiveEvent } from '@townhall/sdk';
import { formatInstant } from '../when.js';
import { eventLine } from './event-lines.js';
import { table } from './table.js';
import { inviteLine, requestLine, ticketLine, waitlistLine } from './ticket-lines.js';

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
