import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { contextOf } from '../context.js';
import type { CliIo } from '../io.js';
import { integer } from '../option-parsers.js';

interface McpOptions {
  budget: string;
  http?: number;
  rpc?: string;
}

/** Atomic units, zero included (a budget of 0 pays for nothing). */
function budget(value: string): string {
  const trimmed = value.trim();
  if (!/^(0|[1-9][0-9]{0,29})$/.test(trimmed))
    throw new InvalidArgumentError('must be an integer amount of atomic units, e.g. 5000000 (5 USDC)');
  return trimmed;
}

/** `mcp`: this agent as a Model Context Protocol server (apps/cli/README.md "MCP"). */
export function registerMcp(program: Command, io: CliIo, version: string): void {
  program
    .command('mcp')
    .description(
      'serve this agent to an LLM runtime (Claude, Cursor, ...) as a Model Context Protocol server on stdio: every tool call is signed with your key',
    )
    .option(
      '--budget <atomic>',
      'the most this session may spend on paid RSVPs, in atomic units (default 0: none)',
      budget,
      '0',
    )
    .option(
      '--http <port>',
      'serve Streamable HTTP on 127.0.0.1:<port>/mcp instead of stdio (0: any free port)',
      integer(0, 65535),
    )
    .option(
      '--rpc <url>',
      'Solana JSON-RPC for payments on chain (default: TOWNHALL_SOLANA_RPC, else the public endpoint)',
    )
    .action(async (options: McpOptions, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      // Loaded only here: the MCP SDK is large, and no other command needs it.
      const [{ Budget }, { serveHttp, serveStdio }] = await Promise.all([
        import('../mcp/budget.js'),
        import('../mcp/townhall-mcp.js'),
      ]);
      const settings = {
        agent,
        budget: new Budget(BigInt(options.budget)),
        rpcUrl: options.rpc ?? (io.env['TOWNHALL_SOLANA_RPC'] || undefined),
        version,
        log: (line: string) => io.err(line),
      };
      const stop = io.stopSignal();
      if (options.http === undefined) await serveStdio(settings, stop);
      else await serveHttp(settings, options.http, stop);
    });
}
