import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { runDemo, DemoStepError } from '../demo.js';
import type { CliIo } from '../io.js';

/** `demo`: a whole paid AMA with six agents against a running instance. */
export function registerDemo(program: Command, io: CliIo): void {
  program
    .command('demo')
    .description(
      'run a whole paid AMA with six agents against a running Townhall (start it first: npm start)',
    )
    .option(
      '--rpc <url>',
      'Solana JSON-RPC, for a server that sells on chain (default http://127.0.0.1:8899: npm start -- --solana-local)',
    )
    .action(async (options: { rpc?: string }, command: Command) => {
      const context = contextOf(command, io);
      // With --json the steps go to stderr and stdout is the result alone.
      const log = context.settings.json ? (line: string) => io.err(line) : (line: string) => io.out(line);
      try {
        const result = await runDemo({
          baseUrl: context.settings.url,
          ...(context.settings.audience ? { audience: context.settings.audience } : {}),
          ...(options.rpc ? { rpcUrl: options.rpc } : {}),
          log,
        });
        if (context.settings.json) io.out(JSON.stringify(result, null, 2));
      } catch (error) {
        if (!(error instanceof DemoStepError)) throw error;
        io.err(`${error.message}${error.hint ? `\n  ${error.hint}` : ''}`);
        throw error.cause;
      }
    });
}
