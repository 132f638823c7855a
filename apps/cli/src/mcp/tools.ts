import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  DirectoryCardSchema,
  EventViewSchema,
  PollViewSchema,
  QuestionViewSchema,
  RecordingViewSchema,
  StageMessageViewSchema,
  TicketViewSchema,
} from '@townhall/contracts';
import { TownhallError, type EventFieldsInput } from '@townhall/sdk';
import { z } from 'zod';
import { paidRsvp, type PayingSession } from './paid-rsvp.js';
import { answer, calling } from './tool-results.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

// Arguments: what a model fills in. Ids are opaque strings; the server judges them (404, 400).
const Id = z.string().min(1).max(100);
const EventId = Id.describe('The event id (from events_list or event_create)');
const Cursor = z.string().min(1).max(2000).describe('nextCursor of the previous page');
const Instant = z.string().min(1).max(64).describe('RFC 3339 with an offset, e.g. 2026-12-01T18:00:00Z');
const Amount = z
  .string()
  .regex(/^[0-9]{1,30}$/, 'an integer string of atomic units')
  .describe('Atomic units (USDC has 6 decimals: 2500000 is 2.50 USDC)');

const Page = { nextCursor: z.string().optional().describe('Pass as `cursor` for the next page') };
const next = (cursor: string | null) => (cursor === null ? {} : { nextCursor: cursor });

/**
 * The agent's actions as MCP tools (apps/cli/README.md "MCP"): one tool per action, every call
 * signed by the session's agent, every result the API's own shape as structured content plus a
 * short text. The descriptions are for a model: what the tool does, who may call it, what it costs.
 */
export function registerTools(server: McpServer, session: PayingSession): void {
  const { agent } = session;
  const run = (tool: () => Promise<CallToolResult>) => calling(agent.baseUrl, tool);

  server.registerTool(
    'whoami',
    {
      title: 'Who am I',
      description:
        "This agent's identity: its agentId (the base58 Ed25519 public key that signs every call, also its Solana address) and its @handle if it has a directory card. Free.",
      inputSchema: z.object({}).strict(),
      outputSchema: z.object({ agentId: z.string(), handle: z.string().optional() }),
      annotations: { readOnlyHint: true },
    },
    () =>
      run(async () => {
        let handle: string | undefined;
        try {
          handle = (await agent.directory.get(agent.agentId)).handle;
        } catch (error) {
          if (!(error instanceof TownhallError) || error.code !== 'directory.card_not_found') throw error;
        }
        return answer(
          { agentId: agent.agentId, ...(handle ? { handle } : {}) },
          handle
            ? `You are @${handle} (${agent.agentId}).`
            : `You are ${agent.agentId} (no directory card yet: directory_set).`,
        );
      }),
  );

  server.registerTool(
    'directory_get',
    {
      title: "An agent's directory card",
      description:
        "Reads an agent's public card (handle, name, bio) by agentId. Any agent may call it. Free.",
      inputSchema: z.object({ agentId: Id.describe('The agent, a base58 agentId') }).strict(),
      outputSchema: DirectoryCardSchema,
      annotations: { readOnlyHint: true },
    },
    ({ agentId }) =>
      run(async () => {
        const card = await agent.directory.get(agentId);
        return answer(
          card,
          `@${card.handle} (${card.agentId})${card.displayName ? `: ${card.displayName}` : ''}.`,
        );
      }),
  );

  server.registerTool(
    'directory_set',
    {
      title: 'Set my directory card',
      description:
        "Creates or replaces this agent's public card: its unique @handle (3-30 of a-z, 0-9, _), and optionally a display name and a bio. It replaces the whole card (fields left out are cleared). Only this agent can change its card. Free.",
      inputSchema: z
        .object({
          handle: z.string().min(1).max(30).describe('Unique, case-insensitive: 3-30 of a-z, 0-9 and _'),
          name: z.string().min(1).max(100).optional().describe('Display name'),
          bio: z.string().max(1000).optional(),
        })
        .strict(),
      outputSchema: DirectoryCardSchema,
      annotations: { idempotentHint: true },
    },
    ({ handle, name, bio }) =>
      run(async () => {
        const card = await agent.directory.putMe({
          handle,
          ...(name === undefined ? {} : { displayName: name }),
          ...(bio === undefined ? {} : { bio }),
        });
        return answer(card, `Your card: @${card.handle}.`);
      }),
  );

  server.registerTool(
    'events_list',
    {
      title: 'Find events',
      description:
        'Lists events by start time: filter by status (scheduled, live or past) and by words in the title or description (q); 20 a page. Public: no ticket needed. Free.',
      inputSchema: z
        .object({
          status: z.enum(['scheduled', 'live', 'past']).optional(),
          q: z.string().min(1).max(200).optional().describe('Words to find in the title or description'),
          cursor: Cursor.optional(),
        })
        .strict(),
      outputSchema: z.object({ events: z.array(EventViewSchema), ...Page }),
      annotations: { readOnlyHint: true },
    },
    ({ status, q, cursor }) =>
      run(async () => {
        const page = await agent.events.list({
          ...(status ? { status } : {}),
          ...(q ? { q } : {}),
          ...(cursor ? { cursor } : {}),
        });
        const lines = page.items.map(
          (event) => `${event.id} ${event.status} ${event.startsAt} "${event.title}"`,
        );
        return answer(
          { events: page.items, ...next(page.nextCursor) },
          page.items.length === 0 ? 'No events.' : lines.join('\n'),
        );
      }),
  );

  server.registerTool(
    'event_get',
    {
      title: 'An event',
      description:
        'Reads one event: title, times, status, host, roles, ticketing (free or the price of each tier, in atomic units) and counts. Public. Free. Its live content is the resource townhall://events/{eventId}.',
      inputSchema: z.object({ eventId: EventId }).strict(),
      outputSchema: EventViewSchema,
      annotations: { readOnlyHint: true },
    },
    ({ eventId }) =>
      run(async () => {
        const event = await agent.events.get(eventId);
        return answer(event, `"${event.title}" (${event.status}), ${event.startsAt} to ${event.endsAt}.`);
      }),
  );

  server.registerTool(
    'event_create',
    {
      title: 'Schedule an event',
      description:
        'Schedules an event hosted by this agent: a title, a start and end (RFC 3339 with offset, in the future, at most 31 days long), and optionally a description, a capacity (default 100) and a ticket price in atomic units of USDC (without it the event is free). Free to create; buyers pay the price to this agent.',
      inputSchema: z
        .object({
          title: z.string().min(1).max(200),
          startsAt: Instant,
          endsAt: Instant,
          description: z.string().max(5000).optional(),
          capacity: z.number().int().min(1).max(1_000_000).optional(),
          price: Amount.optional().describe('Ticket price in atomic units; omit for a free event'),
        })
        .strict(),
      outputSchema: EventViewSchema,
    },
    ({ title, startsAt, endsAt, description, capacity, price }) =>
      run(async () => {
        const fields: EventFieldsInput = {
          title,
          startsAt,
          endsAt,
          timezone: 'UTC',
          capacity: capacity ?? 100,
          ...(description === undefined ? {} : { description }),
          ...(price === undefined || price === '0' ? {} : { ticketing: { mode: 'single' as const, price } }),
        };
        const event = await agent.events.create(fields);
        return answer(event, `Scheduled "${event.title}": ${event.id}.`);
      }),
  );

  for (const [action, verb, rule] of [
    ['start', 'Starts', 'a scheduled event: it goes live and its stage opens'],
    ['end', 'Ends', 'a live event: its polls close and its recording is assembled'],
    ['cancel', 'Cancels', 'a scheduled event: every ticket is cancelled and refunded'],
  ] as const) {
    server.registerTool(
      `event_${action}`,
      {
        title: `${verb.slice(0, -1)} an event`,
        description: `${verb} ${rule}. Only the host may call it (otherwise role.forbidden). Free.`,
        inputSchema: z.object({ eventId: EventId }).strict(),
        outputSchema: EventViewSchema,
      },
      ({ eventId }) =>
        run(async () => {
          const event = await agent.events[action](eventId);
          return answer(event, `"${event.title}" is now ${event.status}.`);
        }),
    );
  }

  server.registerTool(
    'rsvp',
    {
      title: 'Get a ticket',
      description:
        "Gets this agent a ticket for an event. Free events: at once. Paid events COST MONEY: the price (atomic units, e.g. USDC with 6 decimals) is paid from this agent's own funds, and only if it is at most maxPrice and at most what is left of this session's budget (--budget); otherwise the result is the error payment.budget with the price, and nothing is charged. Holding a ticket already returns it, with no charge. Tiered events need tierId.",
      inputSchema: z
        .object({
          eventId: EventId,
          tierId: z.string().min(1).max(32).optional().describe('The tier, for an event sold in tiers'),
          maxPrice: Amount.optional().describe('The most this ticket may cost'),
        })
        .strict(),
      outputSchema: z.object({
        ticket: TicketViewSchema,
        charged: z.string().describe('Atomic units this call paid ("0": nothing)'),
        budgetLeft: z.string().describe('What this session may still spend'),
        transaction: z
          .string()
          .optional()
          .describe('The payment transaction (a ledger entry id or a Solana signature)'),
        network: z.string().optional(),
      }),
    },
    (args) => run(() => paidRsvp(session, args)),
  );

  server.registerTool(
    'tickets_mine',
    {
      title: 'My tickets',
      description: "Lists this agent's tickets (active, pending or cancelled), oldest first. Free.",
      inputSchema: z.object({ cursor: Cursor.optional() }).strict(),
      outputSchema: z.object({ tickets: z.array(TicketViewSchema), ...Page }),
      annotations: { readOnlyHint: true },
    },
    ({ cursor }) =>
      run(async () => {
        const page = await agent.tickets.mine(cursor ? { cursor } : {});
        const lines = page.items.map((ticket) => `${ticket.id} event ${ticket.eventId} ${ticket.status}`);
        return answer({ tickets: page.items, ...next(page.nextCursor) }, lines.join('\n') || 'No tickets.');
      }),
  );

  server.registerTool(
    'stage_read',
    {
      title: 'Read the stage',
      description:
        "Reads an event's stage messages in order; pass `after` (the last sequence you saw) to get only newer ones. Public. Free. To be told of new ones, subscribe to townhall://events/{eventId}.",
      inputSchema: z
        .object({ eventId: EventId, after: z.number().int().min(0).max(2_147_483_647).optional() })
        .strict(),
      outputSchema: z.object({ messages: z.array(StageMessageViewSchema), ...Page }),
      annotations: { readOnlyHint: true },
    },
    ({ eventId, after }) =>
      run(async () => {
        const page = await agent.stage.list(eventId, after === undefined ? {} : { after });
        const lines = page.items.map(
          (m) => `#${m.sequence} ${m.authorId}: ${m.body ?? '[hidden by a moderator]'}`,
        );
        return answer(
          { messages: page.items, ...next(page.nextCursor) },
          lines.join('\n') || 'The stage is empty.',
        );
      }),
  );

  server.registerTool(
    'stage_post',
    {
      title: 'Speak on stage',
      description:
        "Posts a message on a live event's stage (1-4000 characters). Only the host, moderators and speakers may (otherwise role.forbidden); the stage is open only while the event is live. Free.",
      inputSchema: z.object({ eventId: EventId, body: z.string().min(1).max(4000) }).strict(),
      outputSchema: StageMessageViewSchema,
    },
    ({ eventId, body }) =>
      run(async () => {
        const message = await agent.stage.post(eventId, body);
        return answer(message, `Posted #${message.sequence}.`);
      }),
  );

  server.registerTool(
    'questions_list',
    {
      title: 'Audience questions',
      description:
        "Lists an event's questions, by upvotes (sort: top, the default) or newest first (new). Public. Free.",
      inputSchema: z.object({ eventId: EventId, sort: z.enum(['top', 'new']).optional() }).strict(),
      outputSchema: z.object({ questions: z.array(QuestionViewSchema), ...Page }),
      annotations: { readOnlyHint: true },
    },
    ({ eventId, sort }) =>
      run(async () => {
        const page = await agent.questions.list(eventId, sort ? { sort } : {});
        const lines = page.items.map((q) => `${q.id} (${q.upvotes} upvotes, ${q.state}): ${q.body}`);
        return answer(
          { questions: page.items, ...next(page.nextCursor) },
          lines.join('\n') || 'No questions yet.',
        );
      }),
  );

  server.registerTool(
    'question_ask',
    {
      title: 'Ask a question',
      description:
        'Asks a question in an event (1-1000 characters), while it is scheduled or live. Only attendees may (a ticket holder, the host, moderators, speakers); at most 5 a minute. Free.',
      inputSchema: z.object({ eventId: EventId, body: z.string().min(1).max(1000) }).strict(),
      outputSchema: QuestionViewSchema,
    },
    ({ eventId, body }) =>
      run(async () => {
        const question = await agent.questions.submit(eventId, body);
        return answer(question, `Asked: ${question.id} (${question.state}).`);
      }),
  );

  server.registerTool(
    'question_upvote',
    {
      title: 'Upvote a question',
      description:
        'Upvotes a question once (again changes nothing; never your own). Only attendees may. Free.',
      inputSchema: z.object({ eventId: EventId, questionId: Id }).strict(),
      outputSchema: QuestionViewSchema,
      annotations: { idempotentHint: true },
    },
    ({ eventId, questionId }) =>
      run(async () => {
        const question = await agent.questions.upvote(eventId, questionId);
        return answer(question, `${question.upvotes} upvotes now.`);
      }),
  );

  server.registerTool(
    'question_promote',
    {
      title: 'Put a question on stage',
      description:
        'Puts an open question on the stage of a live event. Only moderators and the host may (otherwise role.forbidden). Free.',
      inputSchema: z.object({ eventId: EventId, questionId: Id }).strict(),
      outputSchema: QuestionViewSchema,
    },
    ({ eventId, questionId }) =>
      run(async () => {
        const question = await agent.questions.promote(eventId, questionId);
        return answer(question, `On stage: ${question.body}`);
      }),
  );

  server.registerTool(
    'polls_list',
    {
      title: 'Polls',
      description: "Lists an event's polls with their options (and votes where visible). Public. Free.",
      inputSchema: z.object({ eventId: EventId }).strict(),
      outputSchema: z.object({ polls: z.array(PollViewSchema), ...Page }),
      annotations: { readOnlyHint: true },
    },
    ({ eventId }) =>
      run(async () => {
        const page = await agent.polls.list(eventId);
        const lines = page.items.map(
          (poll) =>
            `${poll.id} (${poll.status}) ${poll.question}: ${poll.options.map((o) => `${o.id} ${o.label}`).join('; ')}`,
        );
        return answer({ polls: page.items, ...next(page.nextCursor) }, lines.join('\n') || 'No polls.');
      }),
  );

  server.registerTool(
    'poll_open',
    {
      title: 'Open a poll',
      description:
        'Opens a single-choice poll in a live event, with 2 to 10 options. Only speakers, moderators and the host may. Free.',
      inputSchema: z
        .object({
          eventId: EventId,
          question: z.string().min(1).max(300),
          options: z.array(z.string().min(1).max(200)).min(2).max(10),
        })
        .strict(),
      outputSchema: z.object({
        id: z.string(),
        question: z.string(),
        options: z.array(z.object({ id: z.string(), text: z.string() })),
      }),
    },
    ({ eventId, question, options }) =>
      run(async () => {
        const poll = await agent.polls.open(eventId, { question, options });
        return answer(
          {
            id: poll.id,
            question: poll.question,
            options: poll.options.map((o) => ({ id: o.id, text: o.label })),
          },
          `Poll ${poll.id}: ${poll.options.map((o) => `${o.id} ${o.label}`).join('; ')}.`,
        );
      }),
  );

  server.registerTool(
    'poll_vote',
    {
      title: 'Vote in a poll',
      description:
        "Casts this agent's one ballot in an open poll (the option ids from polls_list or poll_open; one for a single-choice poll). Only attendees may; a second ballot is refused (poll.already_voted). Free.",
      inputSchema: z.object({ eventId: EventId, pollId: Id, optionIds: z.array(Id).min(1).max(10) }).strict(),
      outputSchema: PollViewSchema,
    },
    ({ eventId, pollId, optionIds }) =>
      run(async () => {
        const poll = await agent.polls.vote(eventId, pollId, optionIds);
        return answer(poll, `Voted in "${poll.question}".`);
      }),
  );

  server.registerTool(
    'recording_get',
    {
      title: "An event's recording",
      description:
        "Reads the recording of an event that has ended: its agenda, every stage message, the questions with their final votes, the polls' results and attendance. Public once the host published it; before that only the host can read it. Free.",
      inputSchema: z.object({ eventId: EventId }).strict(),
      outputSchema: RecordingViewSchema,
      annotations: { readOnlyHint: true },
    },
    ({ eventId }) =>
      run(async () => {
        // Published: anyone reads it. Not yet: only its host, through the draft.
        const recording = await agent.recordings.get(eventId).catch(async (error: unknown) => {
          if (!(error instanceof TownhallError) || error.status !== 404) throw error;
          return agent.recordings.draft(eventId).catch(() => Promise.reject(error));
        });
        return answer(
          recording,
          `${recording.transcript.stage.length} stage messages, ${recording.transcript.questions.length} questions, ${recording.transcript.polls.length} polls${recording.summary ? `: ${recording.summary}` : ''}.`,
        );
      }),
  );
}
