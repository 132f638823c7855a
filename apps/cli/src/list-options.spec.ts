import { Command } from 'commander';
import type { CommandContext } from './context.js';
import { pageOf, pageOptions, searchOptions, searchQuery, type SearchOptions } from './list-options.js';

/** The options `args` give a command that takes the search options. */
function parsed(args: string[]): SearchOptions {
  const command = searchOptions(new Command('list').exitOverride(), 'events');
  return command.parse(args, { from: 'user' }).opts<SearchOptions>();
}

const context = { agent: () => Promise.resolve({ agentId: 'my-agent-id' }) } as unknown as CommandContext;

describe('list options', () => {
  it('asks for a page only with what was given (an empty cursor is none)', () => {
    expect(pageOf({})).toEqual({});
    expect(pageOf({ limit: 5, cursor: 'c2' })).toEqual({ limit: 5, cursor: 'c2' });
    expect(pageOf({ cursor: '' })).toEqual({});
  });

  it('checks --limit against the largest page, and names it in the help', () => {
    const recording = pageOptions(new Command('get').exitOverride(), 500, 'per page');
    expect(recording.parse(['--limit', '500'], { from: 'user' }).opts()).toEqual({ limit: 500 });
    expect(recording.helpInformation()).toContain('per page (1-500)');
    const list = pageOptions(new Command('list').exitOverride().configureOutput({ writeErr: () => {} }));
    expect(() => list.parse(['--limit', '101'], { from: 'user' })).toThrow();
  });

  it('searches by host (me: the key file agent), words and page', async () => {
    expect(
      await searchQuery(context, parsed(['--host', 'me', '-q', 'AMA', '--limit', '2', '--cursor', 'c'])),
    ).toEqual({
      hostId: 'my-agent-id',
      q: 'AMA',
      limit: 2,
      cursor: 'c',
    });
    expect(await searchQuery(context, parsed(['--host', 'someone']))).toEqual({ hostId: 'someone' });
    expect(await searchQuery(context, parsed([]))).toEqual({});
  });
});
