import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { contextOf } from '../context.js';
import { curlCommand, headerLines, type SignedCall } from '../curl.js';
import { UsageError } from '../failure.js';
import type { CliIo } from '../io.js';

interface SignOptions {
  curl?: boolean;
  dataFile?: string;
  rfc9421?: boolean;
  keyid?: 'agentId' | 'thumbprint';
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
    .option(
      '--rfc9421',
      'sign with RFC 9421 HTTP Message Signatures (Signature-Input, Signature, Content-Digest) instead of Authorization and X-Nonce (valid once, for 60 seconds)',
    )
    .addOption(
      new Option(
        '--keyid <keyid>',
        'with --rfc9421: name the key by its agentId (the default) or its JWK thumbprint',
      ).choices(['agentId', 'thumbprint']),
    )
    .addHelpText(
      'after',
      `
Examples:
  townhall sign PUT /directory/me '{"handle":"by_curl"}'          -H lines to paste into your curl
  townhall sign --curl PUT /directory/me '{"handle":"by_curl"}' | sh
  townhall sign --json GET /ledger/balance                        method, url, headers for scripts
  townhall sign --rfc9421 --curl GET '/ledger?limit=5'            RFC 9421 headers instead`,
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
        if (options.keyid !== undefined && !options.rfc9421)
          throw new UsageError('--keyid names the key of an RFC 9421 signature: add --rfc9421');
        const body = options.dataFile !== undefined ? await readFile(options.dataFile, 'utf8') : inline;
        const agent = await context.agent();
        const verb = method.toUpperCase();
        const signedCall = (headers: Record<string, string>): SignedCall => ({
          method: verb,
          url: agent.baseUrl + target,
          headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body }),
        });
        const print = (call: SignedCall, details: Record<string, unknown>) =>
          context.print({ ...call, ...details, audience: agent.audience }, () =>
            options.curl ? curlCommand(call) : headerLines(call),
          );
        if (options.rfc9421) {
          const signed = agent.signRfc9421(verb, target, body, { keyid: options.keyid ?? 'agentId' });
          const headers = Object.entries(signed.headers).map(([name, value]) => [name.toLowerCase(), value]);
          print(signedCall(Object.fromEntries(headers)), {
            created: signed.created,
            expires: signed.expires,
            keyid: signed.keyid,
          });
          return;
        }
        const signed = agent.sign(verb, target, body);
        print(signedCall({ authorization: signed.authorization, 'x-nonce': signed.nonce }), {
          timestamp: signed.timestamp,
        });
      },
    );
}
