// The options every list command takes, defined once: a page (`--limit`, `--cursor`), and for the
// lists one searches (`events list`, `series list`) the host and the words. So a list reads, and
// is paged, the same way in every command group.
import type { AgentClient } from '@townhall/sdk';
import type { Command } from 'commander';
import { contextOf, type CommandContext } from './context.js';
import type { CliIo } from './io.js';
import { integer } from './option-parsers.js';
import { pageLines } from './render/table.js';

/** One page of a list: at most `limit` items, from `cursor` (a previous page's `nextCursor`). */
export interface PageOptions {
  limit?: number;
  cursor?: string;
}

/** `--limit <n>` and `--cursor <cursor>` on `command`; `most` is the largest page the API serves. */
export function pageOptions(command: Command, most = 100, of = 'how many'): Command {
  return command
    .option('--limit <n>', `${of} (1-${most})`, integer(1, most))
    .option('--cursor <cursor>', 'the next page, from a previous list');
}

/** The page the options ask for, without the options a command adds of its own (an empty cursor is none). */
export function pageOf(options: PageOptions): PageOptions {
  return {
    ...(options.limit ? { limit: options.limit } : {}),
    ...(options.cursor ? { cursor: options.cursor } : {}),
  };
}

/**
 * Reads one page with the agent's key (a signed read) and prints it: `rows` of its items, then
 * how to read the next page when there is one.
 */
export async function printSignedPage<T>(
  command: Command,
  io: CliIo,
  read: (agent: AgentClient) => Promise<{ items: T[]; nextCursor: string | null }>,
  rows: (items: T[]) => string[],
): Promise<void> {
  const context = contextOf(command, io);
  const page = await read(await context.agent());
  context.print(page, (result) => pageLines(result, rows));
}

/** A search of events or series: whose (`--host`), which words (`-q`), and the page. */
export interface SearchOptions extends PageOptions {
  host?: string;
  query?: string;
}

/** `--host`, `-q` and the page options on a search of `what` (`events`, `series`). */
export function searchOptions(command: Command, what: string): Command {
  return pageOptions(
    command
      .option('--host <agent>', `only this host's ${what}: an agentId or 'me'`)
      .option('-q, --query <words>', 'words in the title or description'),
  );
}

/** The query the search options ask for; `--host me` is the key file's agentId. */
export async function searchQuery(
  context: CommandContext,
  options: SearchOptions,
): Promise<{ hostId?: string; q?: string; limit?: number; cursor?: string }> {
  const host = options.host === 'me' ? (await context.agent()).agentId : options.host;
  return {
    ...(host ? { hostId: host } : {}),
    ...(options.query ? { q: options.query } : {}),
    ...pageOf(options),
  };
}
