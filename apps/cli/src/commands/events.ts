import {
  ACCESS_MODES,
  QUESTION_MODERATION_MODES,
  type AccessMode,
  type EventChangesInput,
  type EventFieldsInput,
  type EventListQueryInput,
  type EventStatus,
  type QuestionModerationMode,
} from '@townhall/contracts';
import type { AgentClient } from '@townhall/sdk';
import { Option, type Command } from 'commander';
import { contextOf } from '../context.js';
import { UsageError } from '../failure.js';
import type { CliIo } from '../io.js';
import { searchOptions, searchQuery, type SearchOptions } from '../list-options.js';
import {
  amount,
  collect,
  duration,
  instant,
  integer,
  jsonObject,
  tier,
  type TierOption,
} from '../option-parsers.js';
import { eventDetail, eventLine, eventTable } from '../render/event-lines.js';
import { pageLines } from '../render/table.js';
import { findCard, looksLikeAgentId } from './directory.js';

/** The options of `events create` and `events update`: the event's fields. */
interface FieldOptions {
  title?: string;
  description?: string;
  startsAt?: string;
  endsAt?: string;
  duration?: number;
  timezone?: string;
  capacity?: number;
  moderator?: string[];
  speaker?: string[];
  price?: string;
  asset?: string;
  tier?: TierOption[];
  free?: boolean;
  moderation?: QuestionModerationMode;
  reportThreshold?: number;
  offerMinutes?: number;
  access?: AccessMode;
  data?: Record<string, unknown>;
}

/** `events create` has every field (required ones or defaults). */
interface CreateOptions extends FieldOptions {
  title: string;
  startsAt: string;
  duration: number;
  timezone: string;
  capacity: number;
}

interface ListOptions extends SearchOptions {
  status?: EventStatus;
  series?: string;
  from?: string;
  to?: string;
}

const localTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** agentIds as given; `@handle`s resolved through the directory. */
async function agentIds(agent: AgentClient, values: string[] | undefined): Promise<string[] | undefined> {
  if (values === undefined) return undefined;
  return Promise.all(
    values.map(async (value) => (looksLikeAgentId(value) ? value : (await findCard(agent, value)).agentId)),
  );
}

/** The ticketing the flags ask for; undefined when they say nothing about it. */
function ticketingOf(options: FieldOptions): EventFieldsInput['ticketing'] | undefined {
  const given = [options.price !== undefined, options.tier !== undefined, options.free === true];
  if (given.filter(Boolean).length > 1)
    throw new UsageError('--price (one price), --tier (tiers) and --free exclude each other');
  const asset = options.asset === undefined ? {} : { asset: options.asset };
  if (options.price !== undefined) return { mode: 'single', price: options.price, ...asset };
  if (options.tier !== undefined) return { mode: 'tiered', tiers: options.tier, ...asset };
  if (options.free) return { mode: 'free' };
  return undefined;
}

/**
 * The moderation the flags ask for, over the one `--data` gives (field by field: either flag
 * alone keeps the other); undefined when neither says anything about it.
 */
function moderationOf(options: FieldOptions): EventChangesInput['moderation'] {
  if (options.moderation === undefined && options.reportThreshold === undefined) return undefined;
  const given = options.data?.['moderation'];
  return {
    ...(typeof given === 'object' && given !== null ? given : {}),
    ...(options.moderation === undefined ? {} : { questions: options.moderation }),
    ...(options.reportThreshold === undefined ? {} : { reportThreshold: options.reportThreshold }),
  };
}

/** The POST /events body: `--data` first (e.g. an agenda), then the flags over it. */
export async function eventBody(agent: AgentClient, options: CreateOptions): Promise<EventFieldsInput> {
  const endsAt = options.endsAt ?? new Date(Date.parse(options.startsAt) + options.duration).toISOString();
  const ticketing = ticketingOf(options);
  const moderation = moderationOf(options);
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
    ...(moderation ? { moderation } : {}),
    ...(options.offerMinutes === undefined ? {} : { offerMinutes: options.offerMinutes }),
    ...(options.access === undefined ? {} : { access: options.access }),
  } as EventFieldsInput;
}

const NOTHING_TO_CHANGE = 'nothing to change: give at least one field, e.g. --title or --starts-at';

/** What is wrong with `events update` options by themselves, before the key is even read. */
export function checkChanges(options: FieldOptions): void {
  if (Object.values(options).every((value) => value === undefined)) throw new UsageError(NOTHING_TO_CHANGE);
  if (options.endsAt !== undefined && options.duration !== undefined)
    throw new UsageError('--ends-at and --duration exclude each other');
  const ticketing = ticketingOf(options);
  if (options.asset !== undefined && ticketing?.mode !== 'single' && ticketing?.mode !== 'tiered')
    throw new UsageError('--asset goes with --price or --tier (the ticketing is replaced as a whole)');
}

/**
 * The PATCH /events/{id} body: only the fields given (`--data` first, then the flags over it).
 * `--duration` counts from `--starts-at`, or else from the event's current start (`currentStart`).
 */
export async function eventChanges(
  agent: AgentClient,
  options: FieldOptions,
  currentStart: () => Promise<string>,
): Promise<EventChangesInput> {
  checkChanges(options);
  const ticketing = ticketingOf(options);
  const moderation = moderationOf(options);
  const endsAt =
    options.duration === undefined
      ? options.endsAt
      : new Date(Date.parse(options.startsAt ?? (await currentStart())) + options.duration).toISOString();
  const moderators = await agentIds(agent, options.moderator);
  const speakers = await agentIds(agent, options.speaker);
  const changes: EventChangesInput = {
    ...(options.data as Partial<EventChangesInput> | undefined),
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.startsAt === undefined ? {} : { startsAt: options.startsAt }),
    ...(endsAt === undefined ? {} : { endsAt }),
    ...(options.timezone === undefined ? {} : { timezone: options.timezone }),
    ...(options.capacity === undefined ? {} : { capacity: options.capacity }),
    ...(moderators ? { moderators } : {}),
    ...(speakers ? { speakers } : {}),
    ...(ticketing ? { ticketing } : {}),
    ...(moderation ? { moderation } : {}),
    ...(options.offerMinutes === undefined ? {} : { offerMinutes: options.offerMinutes }),
    ...(options.access === undefined ? {} : { access: options.access }),
  };
  if (Object.keys(changes).length === 0) throw new UsageError(NOTHING_TO_CHANGE);
  return changes;
}

/**
 * The field options, once for both commands: `create` requires the title and start and has
 * defaults; `update` has neither, so that only what is given is sent.
 */
function fieldOptions(command: Command, mode: 'create' | 'update'): Command {
  const create = mode === 'create';
  const title = '--title <title>';
  const titleHelp = 'the title (1-200 characters)';
  const startsAt = '--starts-at <when>';
  const startsAtHelp = 'now, +<duration> (e.g. +1h) or RFC 3339';
  if (create) command.requiredOption(title, titleHelp).requiredOption(startsAt, startsAtHelp, instant);
  else command.option(title, titleHelp).option(startsAt, startsAtHelp, instant);
  const durationOption = new Option(
    '--duration <duration>',
    create ? 'how long it lasts, e.g. 45m or 1h30m' : 'how long it lasts, from the (new) start: sets the end',
  ).argParser(duration);
  command
    .option('--ends-at <when>', create ? 'the end (default: start + --duration)' : 'the end', instant)
    .addOption(create ? durationOption.default(3_600_000, '1h') : durationOption);
  if (create)
    command
      .option('--timezone <zone>', 'IANA time zone of the event', localTimeZone())
      .option('--capacity <n>', 'seats in total', integer(1, 1_000_000), 100);
  else
    command
      .option('--timezone <zone>', 'IANA time zone of the event')
      .option('--capacity <n>', 'seats in total', integer(1, 1_000_000));
  const replaces = create ? '' : ', replacing the list';
  command
    .option('--description <text>', 'what it is about')
    .option('--moderator <agent>', `a moderator: agentId or @handle (repeatable${replaces})`, collect)
    .option('--speaker <agent>', `a speaker: agentId or @handle (repeatable${replaces})`, collect)
    .option(
      '--price <amount>',
      create ? 'sell tickets at one price, in atomic units (default: free)' : 'sell tickets at one price',
      amount,
    )
    .option(
      '--tier <id:name:price:capacity[:hidden]>',
      'sell tiered tickets (repeatable); :hidden sells the tier only with a code that unlocks it (townhall codes create --unlocks)',
      tier,
    );
  if (!create) command.option('--free', 'make tickets free');
  command
    .addOption(
      new Option(
        '--moderation <mode>',
        create
          ? 'questions: post (open at once, the default) or pre (each waits for approval)'
          : 'questions: post (open at once) or pre (each waits for approval)',
      ).choices(QUESTION_MODERATION_MODES),
    )
    .option(
      '--report-threshold <n>',
      create
        ? 'reports that send an open question back for review (1-100, default 3)'
        : 'reports that send an open question back for review (1-100)',
      integer(1, 100),
    )
    .option(
      '--offer-minutes <n>',
      create
        ? 'how long a waitlisted agent may take a freed paid seat (1-1440, default 15)'
        : 'how long a waitlisted agent may take a freed paid seat (1-1440)',
      integer(1, 1440),
    )
    .addOption(
      new Option(
        '--access <access>',
        create
          ? 'who may RSVP: open (anyone, the default), approval (an RSVP asks; you approve or decline: townhall requests) or invite (only the agents you invite: townhall invites add)'
          : 'who may RSVP: open (anyone), approval (an RSVP asks; you approve or decline: townhall requests) or invite (only the agents you invite: townhall invites add)',
      ).choices(ACCESS_MODES),
    );
  return command
    .option('--asset <asset>', 'the asset prices are in (default USDC)')
    .option('--data <json>', 'more fields as JSON or @file, e.g. {"agenda":[...]}', jsonObject);
}

/** `events create|update|list|get|start|end|cancel`. */
export function registerEvents(program: Command, io: CliIo): void {
  const events = program.command('events').description('schedule, find and run events');

  fieldOptions(events.command('create').description('schedule an event; you are its host'), 'create').action(
    async (options: CreateOptions, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      const event = await agent.events.create(await eventBody(agent, options));
      context.print(event, eventDetail);
    },
  );

  fieldOptions(
    events
      .command('update')
      .description('change a scheduled event (host): only the fields given are sent')
      .argument('<eventId>'),
    'update',
  ).action(async (eventId: string, options: FieldOptions, command: Command) => {
    const context = contextOf(command, io);
    checkChanges(options);
    const agent = await context.agent();
    const changes = await eventChanges(
      agent,
      options,
      async () => (await context.visitor().events.get(eventId)).startsAt,
    );
    context.print(await agent.events.update(eventId, changes), eventDetail);
  });

  searchOptions(
    events
      .command('list')
      .description('find events, sorted by start time')
      .addOption(
        new Option('--status <status>', 'only this status').choices([
          'scheduled',
          'live',
          'past',
          'cancelled',
        ]),
      )
      .option('--series <seriesId>', 'only occurrences of this series')
      .option('--from <when>', 'starting at or after', instant)
      .option('--to <when>', 'starting before', instant),
    'events',
  ).action(async (options: ListOptions, command: Command) => {
    const context = contextOf(command, io);
    const query: EventListQueryInput = {
      ...(options.status ? { status: options.status } : {}),
      ...(options.series ? { seriesId: options.series } : {}),
      ...(options.from ? { from: options.from } : {}),
      ...(options.to ? { to: options.to } : {}),
      ...(await searchQuery(context, options)),
    };
    const page = await context.visitor().events.list(query);
    context.print(page, (result) => pageLines(result, eventTable));
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
