import type { CreateSeriesInput, SeriesListQueryInput } from '@townhall/contracts';
import { Option, type Command } from 'commander';
import { contextOf } from '../context.js';
import { UsageError } from '../failure.js';
import type { CliIo } from '../io.js';
import { searchOptions, searchQuery, type SearchOptions } from '../list-options.js';
import { amount, duration, integer, jsonObject, localDateTime, tier } from '../option-parsers.js';
import { seriesLines, seriesTable } from '../render/event-lines.js';
import { pageLines } from '../render/table.js';

interface CreateOptions {
  title: string;
  description?: string;
  startsAt: string;
  timezone: string;
  rrule: string;
  duration: number;
  capacity: number;
  price?: string;
  tier?: Array<{ id: string; name: string; price: string; capacity: number }>;
  asset?: string;
  data?: Record<string, unknown>;
}

export function seriesBody(options: CreateOptions): CreateSeriesInput {
  if (options.price !== undefined && options.tier !== undefined)
    throw new UsageError('--price (one price) and --tier (tiers) exclude each other');
  const asset = options.asset === undefined ? {} : { asset: options.asset };
  const ticketing: CreateSeriesInput['template']['ticketing'] =
    options.price !== undefined
      ? { mode: 'single', price: options.price, ...asset }
      : options.tier !== undefined
        ? { mode: 'tiered', tiers: options.tier, ...asset }
        : { mode: 'free' };
  const data = (options.data ?? {}) as Partial<CreateSeriesInput>;
  return {
    ...data,
    title: options.title,
    ...(options.description === undefined ? {} : { description: options.description }),
    recurrence: { startsAt: options.startsAt, timezone: options.timezone, rrule: options.rrule },
    template: {
      ...data.template,
      durationMinutes: Math.round(options.duration / 60_000),
      capacity: options.capacity,
      ticketing,
    },
  };
}

/** `series create|list|get|follow|end`: recurring events. */
export function registerSeries(program: Command, io: CliIo): void {
  const series = program
    .command('series')
    .description(
      'recurring events (RRULE); following one RSVPs you to its next free occurrence, and each later one as it comes',
    );

  series
    .command('create')
    .description('create a series; you host every occurrence')
    .requiredOption('--title <title>', 'the title')
    .requiredOption(
      '--starts-at <local>',
      'first occurrence, local time without offset: 2027-03-04T19:00',
      localDateTime,
    )
    .requiredOption('--rrule <rule>', 'e.g. FREQ=WEEKLY;BYDAY=TH;COUNT=10')
    .option('--timezone <zone>', 'IANA time zone the times are in', 'UTC')
    .addOption(
      new Option('--duration <duration>', 'how long each occurrence lasts')
        .argParser(duration)
        .default(3_600_000, '1h'),
    )
    .option('--capacity <n>', 'seats per occurrence', integer(1, 1_000_000), 100)
    .option('--description <text>', 'what it is about')
    .option('--price <amount>', 'one ticket price per occurrence, atomic units (default: free)', amount)
    .option('--tier <id:name:price:capacity>', 'tiered tickets (repeatable)', tier)
    .option('--asset <asset>', 'the asset prices are in (default USDC)')
    .option('--data <json>', 'more fields as JSON or @file, e.g. {"template":{"agenda":[...]}}', jsonObject)
    .action(async (options: CreateOptions, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      context.print(await agent.series.create(seriesBody(options)), seriesLines);
    });

  searchOptions(series.command('list').description('find series, newest first'), 'series').action(
    async (options: SearchOptions, command: Command) => {
      const context = contextOf(command, io);
      const query: SeriesListQueryInput = await searchQuery(context, options);
      const page = await context.visitor().series.list(query);
      context.print(page, (result) => pageLines(result, seriesTable));
    },
  );

  series
    .command('get')
    .description('show a series and its next occurrences')
    .argument('<seriesId>')
    .action(async (seriesId: string, _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      context.print(await context.visitor().series.get(seriesId), seriesLines);
    });

  series
    .command('follow')
    .description(
      'follow a series: a ticket for its next free occurrence, and for each later one when it becomes the next (if a seat is free then)',
    )
    .argument('<seriesId>')
    .option('--unfollow', 'stop following it')
    .action(async (seriesId: string, options: { unfollow?: boolean }, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      const result = options.unfollow
        ? await agent.series.unfollow(seriesId)
        : await agent.series.follow(seriesId);
      context.print(result, (view) => [
        `${options.unfollow ? 'unfollowed' : 'following'} "${view.title}" (${view.followerCount} follower${view.followerCount === 1 ? '' : 's'})`,
        ...seriesLines(view).slice(1),
      ]);
    });

  series
    .command('end')
    .description(
      'end a series you host: nothing more is scheduled; occurrences nobody holds a ticket for are cancelled, the others stay',
    )
    .argument('<seriesId>')
    .action(async (seriesId: string, _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      const view = await agent.series.end(seriesId);
      context.print(view, (ended) => [`ended "${ended.title}"`, ...seriesLines(ended).slice(1)]);
    });
}
