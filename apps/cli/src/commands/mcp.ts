import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { contextOf } from '../context.js';
import { UsageError } from '../failure.js';
import type { CliIo } from '../io.js';
import { integer } from '../option-parsers.js';
import { parseDuration } from '../when.js';

interface McpOptions {
  budget: string;
  asset?: string;
  http?: number;
  tokenFile?: string;
  idleTimeout?: number;
  rpc?: string;
}

/** How long an HTTP session lives without a request, unless --idle-timeout says otherwise. */
const DEFAULT_IDLE_MS = 30 * 60_000;

/** Atomic units, zero included (a budget of 0 pays for nothing). */
function budget(value: string): string {
  const trimmed = value.trim();
  if (!/^(0|[1-9][0-9]{0,29})$/.test(trimmed))
    throw new InvalidArgumentError('must be an integer amount of atomic units, e.g. 5000000 (5 USDC)');
  return trimmed;
}

/** An asset as Townhall names it: `USDC` on the ledger, a mint's address on Solana. */
function asset(value: string): string {
  const trimmed = value.trim();
  if (!/^[A-Za-z0-9:._-]{1,64}$/.test(trimmed))
    throw new InvalidArgumentError(
      'must be an asset as offers name it: USDC on the ledger, the mint on Solana',
    );
  return trimmed;
}

/** `45s`, `30m`, `2h`: at least a second (tests use seconds), at most a week. */
function idleTimeout(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms < 1_000 || ms > 7 * 86_400_000)
    throw new InvalidArgumentError('must be a duration from 1s to 7d, e.g. 30m or 2h');
  return ms;
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
      '--asset <asset>',
      "the budget's asset, the only one it pays in (default: the asset of its first payment)",
      asset,
    )
    .option(
      '--http <port>',
      'serve Streamable HTTP on 127.0.0.1:<port>/mcp instead of stdio (0: any free port), behind a bearer token',
      integer(0, 65535),
    )
    .option(
      '--token-file <file>',
      'with --http: the bearer token, read from a file only its owner can read (default: a new one, printed on stderr)',
    )
    .option(
      '--idle-timeout <duration>',
      'with --http: close a session after this long without a request (default 30m)',
      idleTimeout,
    )
    .option(
      '--rpc <url>',
      'Solana JSON-RPC for payments on chain (default: TOWNHALL_SOLANA_RPC, else the public endpoint)',
    )
    .action(async (options: McpOptions, command: Command) => {
      if (
        options.http === undefined &&
        (options.tokenFile !== undefined || options.idleTimeout !== undefined)
      )
        throw new UsageError('--token-file and --idle-timeout go with --http (stdio needs neither)');
      const context = contextOf(command, io);
      // Loaded only here: the MCP SDK is large, and no other command needs it.
      const [{ Budget }, { newBearerToken, readBearerToken }, { serveHttp, serveStdio }] = await Promise.all([
        import('../mcp/budget.js'),
        import('../mcp/bearer-token.js'),
        import('../mcp/townhall-mcp.js'),
      ]);
      // A token file that will not do stops the command before the key is even read.
      const http =
        options.http === undefined
          ? undefined
          : {
              port: options.http,
              token:
                options.tokenFile === undefined ? newBearerToken() : await readBearerToken(options.tokenFile),
              tokenFile: options.tokenFile,
              idleMs: options.idleTimeout ?? DEFAULT_IDLE_MS,
            };
      const agent = await context.agent();
      const settings = {
        agent,
        budget: new Budget(BigInt(options.budget), options.asset),
        asset: options.asset,
        rpcUrl: options.rpc ?? (io.env['TOWNHALL_SOLANA_RPC'] || undefined),
        version,
        log: (line: string) => io.err(line),
      };
      const stop = io.stopSignal();
      if (http === undefined) await serveStdio(settings, stop);
      else await serveHttp(settings, http, stop);
    });
}
