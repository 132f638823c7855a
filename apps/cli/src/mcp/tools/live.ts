import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  PollViewSchema,
  QuestionViewSchema,
  RecordingViewSchema,
  StageMessageViewSchema,
} from '@townhall/contracts';
import { TownhallError } from '@townhall/sdk';
import { z } from 'zod';
import type { PayingSession } from '../paid-rsvp.js';
import { answer } from '../tool-results.js';
import { EventId, Id, next, Page, type Run } from './arguments.js';

/** During an event: the stage, questions, polls; after it, the recording. */
export function registerLiveTools(server: McpServer, { agent }: PayingSession, run: Run): void {
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
        "Reads the recording of an event that has ended: its agenda, the stage messages, the questions with their final votes, the polls' results and attendance, a page at a time (up to `limit` of each list, default 100; pass `nextCursor` back as `cursor` for the next page). Public once the host published it; before that only the host can read it. Free.",
      inputSchema: z
        .object({
          eventId: EventId,
          limit: z.number().int().min(1).max(500).optional().describe('Items of each list per page (1-500)'),
          cursor: z.string().max(512).optional().describe('The previous page’s nextCursor'),
        })
        .strict(),
      outputSchema: RecordingViewSchema,
      annotations: { readOnlyHint: true },
    },
    ({ eventId, limit, cursor }) =>
      run(async () => {
        const page = {
          ...(limit === undefined ? {} : { limit }),
          ...(cursor === undefined ? {} : { cursor }),
        };
        // Published: anyone reads it. Not yet: only its host, through the draft.
        const recording = await agent.recordings.get(eventId, page).catch(async (error: unknown) => {
          if (!(error instanceof TownhallError) || error.status !== 404) throw error;
          return agent.recordings.draft(eventId, page).catch(() => Promise.reject(error));
        });
        return answer(
          recording,
          `${recording.transcript.stage.length} stage messages, ${recording.transcript.questions.length} questions, ${recording.transcript.polls.length} polls${recording.summary ? `: ${recording.summary}` : ''}.${recording.nextCursor ? ` More: cursor ${recording.nextCursor}.` : ''}`,
        );
      }),
  );
}
