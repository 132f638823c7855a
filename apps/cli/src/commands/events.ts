import type { EventFieldsInput, EventListQueryInput, EventStatus } from '@townhall/contracts';
import type { AgentClient } from '@townhall/sdk';
import { Option, type Command } from 'commander';
import { contextOf } from '../context.js';
import { UsageError } from '../failure.js';
import type { CliIo } from '../io.js';
import { amount, collect, duration, instant, integer, jsonObject, tier } from '../option-parsers.js';
import { eventDetail, eventLine, eventTable } from '../render.js';
import { findCard, looksLikeAgentId } from './directory.js';

interface CreateOptions {
  title: string;
  description?: string;
  startsAt: string;
  endsAt?: string;
  duration: number;
  timezone: string;
  capacity: number;
  moderator?: string[];
  speaker?: string[];
  price?: string;
  asset?: string;
  tier?: Array<{ id: string; name: string; price: string; capacity: number }>;
  data?: Record<string, unknown>;
}

interface ListOptions {
  status?: EventStatus;
  host?: string;
  series?: string;
  from?: string;
  to?: string;
  query?: string;
  limit?: number;
  cursor?: string;
}

const localTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** agentIds as given; `@handle`s resolved through the directory. */
async function agentIds(agent: AgentClient, values: string[] | undefined): Promise<string[] | undefined> {
  if (values === undefined) return undefined;
  return Promise.all(
    values.map(async (value) => (looksLikeAgentId(value) ? value : (await findCard(agent, value)).agentId)),
  );
}

/** The POST /events body: `--data` first (e.g. an agenda), then the flags over it. */
export async function eventBody(agent: AgentClient, options: CreateOptions): Promise<EventFieldsInput> {
  if (options.price !== undefined && options.tier !== undefined)
    throw new UsageError('--price (one price) and --tier (tiers) exclude each other');
  const endsAt = options.endsAt ?? new Date(Date.parse(options.startsAt) + options.duration).toISOString();
  const asset = options.asset === undefined ? {} : { asset: options.asset };
  const ticketing: EventFieldsInput['ticketing'] | undefined =
    options.price !== undefined
      ? { mode: 'single', price: options.price, ...asset }
      : options.tier !== undefined
        ? { mode: 'tiered', tiers: options.tier, ...asset }
        : undefined;
  const moderators = await agentIds(agent, options.moderator);
  const speakers = await agentIds(agent, options.speaker);
  return {
    ...(options.data as Partial<EventFieldsInput> | undefined),
    title: options.title,
    ...(options.description === undefined ? {} : { description: options.description }),
    startsAt: options.startsAt,
    endsAt,
    timezone: options.timezone,
    capacity: options.capacity,
    ...(moderators ? { moderators } : {}),
    ...(speakers ? { speakers } : {}),
    ...(ticketing ? { ticketing } : {}),
  } as EventFieldsInput;
}

/** `events create|list|get|start|end|cancel`. */
export function registerEvents(program: Command, io: CliIo): void {
  const events = program.command('events').description('schedule, find and run events');

  events
    .command('create')
    .description('schedule an event; you are its host')
    .requiredOption('--title <title>', 'the title (1-200 characters)')
    .requiredOption('--starts-at <when>', 'now, +<duration> (e.g. +1h) or RFC 3339', instant)
    .option('--ends-at <when>', 'the end (default: start + --duration)', instant)
    .addOption(
      new Option('--duration <duration>', 'how long it lasts, e.g. 45m or 1h30m')
        .argParser(duration)
        .default(3_600_000, '1h'),
    )
    .option('--timezone <zone>', 'IANA time zone of the event', localTimeZone())
    .option('--capacity <n>', 'seats in total', integer(1, 1_000_000), 100)
    .option('--description <text>', 'what it is about')
    .option('--moderator <agent>', 'a moderator: agentId or @handle (repeatable)', collect)
    .option('--speaker <agent>', 'a speaker: agentId or @handle (repeatable)', collect)
    .option('--price <amount>', 'sell tickets at one price, in atomic units (default: free)', amount)
    .option('--tier <id:name:price:capacity>', 'sell tiered tickets (repeatable)', tier)
    .option('--asset <asset>', 'the asset prices are in (default USDC)')
    .option('--data <json>', 'more fields as JSON or @file, e.g. {"agenda":[...]}', jsonObject)
    .action(async (options: CreateOptions, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      const event = await agent.events.create(await eventBody(agent, options));
      context.print(event, eventDetail);
    });

  events
    .command('list')
    .description('find events, sorted by start time')
    .addOption(
      new Option('--status <status>', 'only this status').choices(['scheduled', 'live', 'past', 'cancelled']),
    )
    .option('--host <agent>', "only this host's events: an agentId or 'me'")
    .option('--series <seriesId>', 'only occurrences of this series')
    .option('--from <when>', 'starting at or after', instant)
    .option('--to <when>', 'starting before', instant)
    .option('-q, --query <words>', 'words in the title or description')
    .option('--limit <n>', 'how many (1-100)', integer(1, 100))
    .option('--cursor <cursor>', 'the next page, from a previous list')
    .action(async (options: ListOptions, command: Command) => {
      const context = contextOf(command, io);
      const host = options.host === 'me' ? (await context.agent()).agentId : options.host;
      const query: EventListQueryInput = {
        ...(options.status ? { status: options.status } : {}),
        ...(host ? { hostId: host } : {}),
        ...(options.series ? { seriesId: options.series } : {}),
        ...(options.from ? { from: options.from } : {}),
        ...(options.to ? { to: options.to } : {}),
        ...(options.query ? { q: options.query } : {}),
        ...(options.limit ? { limit: options.limit } : {}),
        ...(options.cursor ? { cursor: options.cursor } : {}),
      };
      const page = await context.visitor().events.list(query);
      context.print(page, (result) => [
        ...eventTable(result.items),
        ...(result.nextCursor ? [`more: --cursor ${result.nextCursor}`] : []),
      ]);
    });

  events
    .command('get')
    .description('show one event')
    .argument('<eventId>')
    .action(async (eventId: string, _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      context.print(await context.visitor().events.get(eventId), eventDetail);
    });

  const lifecycle = {
    start: 'go live (host): opens the stage and polls',
    end: 'end it (host): closes polls, assembles the recording',
    cancel: 'cancel it (host): cancels every ticket and refunds paid ones',
  } as const;
  for (const [action, description] of Object.entries(lifecycle) as Array<[keyof typeof lifecycle, string]>) {
    events
      .command(action)
      .description(description)
      .argument('<eventId>')
      .action(async (eventId: string, _options: unknown, command: Command) => {
        const context = contextOf(command, io);
        const agent = await context.agent();
        context.print(await agent.events[action](eventId), eventLine);
      });
  }
}
