import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { curlCommand, headerLines, type SignedCall } from '../curl.js';
import { UsageError } from '../failure.js';
import type { CliIo } from '../io.js';

interface SignOptions {
  curl?: boolean;
  dataFile?: string;
}

/** `sign`: the headers of one signed request, to send with curl or anything else. */
export function registerSign(program: Command, io: CliIo): void {
  program
    .command('sign')
    .description('print the signature headers for one request, for curl (valid once, for 5 minutes)')
    .argument('<method>', 'GET, POST, PUT, PATCH, DELETE')
    .argument('<path>', 'the path and query exactly as you will send it, e.g. /directory/me')
    .argument('[body]', 'the body exactly as you will send it (JSON)')
    .option('--data-file <file>', 'read the body from a file instead')
    .option('--curl', 'print a whole curl command instead of -H lines')
    .addHelpText(
      'after',
      `
Examples:
  townhall sign PUT /directory/me '{"handle":"by_curl"}'          -H lines to paste into your curl
  townhall sign --curl PUT /directory/me '{"handle":"by_curl"}' | sh
  townhall sign --json GET /ledger/balance                        method, url, headers for scripts`,
    )
    .action(
      async (
        method: string,
        target: string,
        inline: string | undefined,
        options: SignOptions,
        command: Command,
      ) => {
        const context = contextOf(command, io);
        if (!target.startsWith('/')) throw new UsageError(`the path must start with / (got ${target})`);
        if (inline !== undefined && options.dataFile !== undefined)
          throw new UsageError('give the body inline or with --data-file, not both');
        const body = options.dataFile !== undefined ? await readFile(options.dataFile, 'utf8') : inline;
        const agent = await context.agent();
        const verb = method.toUpperCase();
        const signed = agent.sign(verb, target, body);
        const call: SignedCall = {
          method: verb,
          url: agent.baseUrl + target,
          headers: {
            authorization: signed.authorization,
            'x-nonce': signed.nonce,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body }),
        };
        context.print({ ...call, timestamp: signed.timestamp, audience: agent.audience }, () =>
          options.curl ? curlCommand(call) : headerLines(call),
        );
      },
    );
}
