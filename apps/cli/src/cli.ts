import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerCodes } from './commands/codes.js';
import { registerDemo } from './commands/demo.js';
import { registerDirectory } from './commands/directory.js';
import { registerEvents } from './commands/events.js';
import { registerInvites } from './commands/invites.js';
import { registerKeys } from './commands/keys.js';
import { registerLedger } from './commands/ledger.js';
import { registerMcp } from './commands/mcp.js';
import { registerModeration } from './commands/moderation.js';
import { registerPolls } from './commands/polls.js';
import { registerQuestions } from './commands/questions.js';
import { registerRecording } from './commands/recording.js';
import { registerRefunds } from './commands/refunds.js';
import { registerReport } from './commands/report.js';
import { registerRequests } from './commands/requests.js';
import { registerRsvp } from './commands/rsvp.js';
import { registerSeries } from './commands/series.js';
import { registerSign } from './commands/sign.js';
import { registerStage } from './commands/stage.js';
import { registerTickets } from './commands/tickets.js';
import { registerWaitlist } from './commands/waitlist.js';
import { registerWallet } from './commands/wallet.js';
import { registerWebhooks } from './commands/webhooks.js';
import { DEFAULT_URL, resolveSettings, type GlobalOptions } from './context.js';
import { describeFailure, type SignedFor } from './failure.js';
import type { CliIo } from './io.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface ProgramOptions {
  /**
   * `--json` is on the command line: commander's own errors (a wrong command line) print nothing,
   * so that the caller can print them as JSON.
   */
  json?: boolean;
}

/** The `townhall` command and every subcommand, writing through `io`. */
export function createProgram(io: CliIo, options: ProgramOptions = {}): Command {
  const program = new Command('townhall')
    .description('Townhall from the command line: every request is signed by your agent key')
    .version(VERSION)
    .option('--url <url>', `the gateway (default: $TOWNHALL_URL or ${DEFAULT_URL})`)
    .option('--key <file>', 'your key file (default: $TOWNHALL_KEY or ~/.townhall/key.json)')
    .option(
      '--audience <origin>',
      "the server's PUBLIC_BASE_URL, if not the --url origin ($TOWNHALL_AUDIENCE)",
    )
    .option(
      '--idempotency-key <key>',
      'send this Idempotency-Key on the signed write: retry with the same key and it runs at most once',
    )
    .option('--json', 'print the raw JSON result, and errors as JSON on stderr (for scripts)')
    .showHelpAfterError(options.json ? false : '(add --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text),
      // Commander writes to stderr only for a wrong command line; with --json, runCli says it.
      writeErr: (text) => (options.json ? undefined : io.err(text)),
      // Commander's own messages in the CLI's shape: `error usage: ...`.
      outputError: (text, write) => write(text.replace(/^error: /, 'error usage: ')),
    });
  registerKeys(program, io);
  registerDirectory(program, io);
  registerEvents(program, io);
  registerRsvp(program, io);
  registerTickets(program, io);
  registerWaitlist(program, io);
  registerInvites(program, io);
  registerRequests(program, io);
  registerCodes(program, io);
  registerStage(program, io);
  registerQuestions(program, io);
  registerModeration(program, io);
  registerPolls(program, io);
  registerRecording(program, io);
  registerReport(program, io);
  registerSeries(program, io);
  registerLedger(program, io);
  registerWallet(program, io);
  registerRefunds(program, io);
  registerWebhooks(program, io);
  registerSign(program, io);
  registerDemo(program, io);
  registerMcp(program, io, VERSION);
  return program;
}

/** Whether `--json` is among the options (before a `--` that ends them). */
export function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/** The audience signed requests were signed for, and where it came from; undefined if unknown. */
function signedFor(options: GlobalOptions, io: CliIo): SignedFor | undefined {
  try {
    const settings = resolveSettings(options, io.env, io.home);
    if (settings.audience !== undefined)
      return {
        audience: settings.audience,
        from: options.audience !== undefined ? '--audience' : 'TOWNHALL_AUDIENCE',
      };
    const from =
      options.url !== undefined ? '--url' : io.env['TOWNHALL_URL'] ? 'TOWNHALL_URL' : 'the default URL';
    return { audience: new URL(settings.url).origin, from: `the origin of ${from}` };
  } catch {
    return undefined;
  }
}

/**
 * Runs one command line; resolves to the exit code: 0 done, 1 the command failed (printed as
 * `error <code>: <detail>`, or as JSON with --json), 2 the command line is wrong.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const json = wantsJson(argv);
  const program = createProgram(io, { json });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return 0; // the help or the version, printed
      // Without --json commander has printed its message (or the help) already.
      if (json) {
        const message =
          error.code === 'commander.help'
            ? 'a command is missing (add --help to list them)'
            : error.message.replace(/^error: /, '');
        io.err(JSON.stringify({ error: { code: 'usage', message } }, null, 2));
      }
      return 2;
    }
    const options = program.opts<GlobalOptions>();
    const url = options.url ?? (io.env['TOWNHALL_URL'] || DEFAULT_URL);
    const failure = describeFailure(error, url, signedFor(options, io));
    io.err(json || options.json ? JSON.stringify(failure.json, null, 2) : failure.lines.join('\n'));
    return failure.exitCode;
  }
}
