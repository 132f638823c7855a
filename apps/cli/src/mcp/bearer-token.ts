import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Refusal } from '../failure.js';

/**
 * The secret of `townhall mcp --http`. The port is reachable by every process and user of the
 * machine, and whoever speaks MCP there acts as the agent (spends the budget, cancels its events,
 * approves its own payments through its own elicitation): the token is what tells the runtime the
 * person started from everyone else. The Host check only stops web pages.
 */

/** The fewest characters a token from a file may have (a generated one has 43). */
export const MIN_TOKEN_LENGTH = 32;

/** RFC 6750 `b64token`: what an `Authorization: Bearer` value may hold. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** 32 random bytes, base64url: a token for this run. */
export function newBearerToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The token in `path` (one line; surrounding whitespace ignored). Refused, before anything is
 * served: a missing file, one that group or others can read or write (the token would be theirs
 * too), an empty one, one shorter than 32 characters, or one a Bearer header cannot carry.
 */
export async function readBearerToken(path: string): Promise<string> {
  let text: string;
  let mode: number;
  try {
    // One open file for both checks: the mode judged is the mode of the file read.
    const handle = await open(path, 'r');
    try {
      mode = (await handle.stat()).mode;
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new Refusal('token.not_found', `cannot read the token file ${path}: ${(error as Error).message}`);
  }
  const bits = mode & 0o777;
  if ((bits & 0o077) !== 0)
    throw new Refusal(
      'token.too_open',
      `permissions ${bits.toString(8).padStart(4, '0')} for ${path} are too open: the token must be readable by its owner only (run: chmod 600 ${path})`,
    );
  const token = text.trim();
  if (token.length === 0) throw new Refusal('token.malformed', `the token file ${path} is empty`);
  if (token.length < MIN_TOKEN_LENGTH)
    throw new Refusal(
      'token.malformed',
      `the token in ${path} has ${token.length} characters; it needs at least ${MIN_TOKEN_LENGTH} (e.g. openssl rand -base64 32 > ${path})`,
    );
  if (!B64TOKEN.test(token))
    throw new Refusal(
      'token.malformed',
      `the token in ${path} must be one line of A-Z a-z 0-9 - . _ ~ + / (then = padding): an Authorization: Bearer header carries nothing else`,
    );
  return token;
}

/**
 * Answers 401 to a request without `Authorization: Bearer <token>` and returns false; true lets it
 * through. Both tokens are hashed first, so the comparison takes the same time whatever the length
 * or the first differing byte of the guess.
 */
export function bearerGuard(token: string): (request: IncomingMessage, response: ServerResponse) => boolean {
  const expected = digest(token);
  return (request, response) => {
    const given = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')?.[1];
    if (given !== undefined && timingSafeEqual(digest(given), expected)) return true;
    response.writeHead(401, {
      'content-type': 'application/json',
      // RFC 6750: no error code when no credentials were sent; invalid_token when they were wrong.
      'www-authenticate':
        given === undefined
          ? 'Bearer realm="townhall mcp"'
          : 'Bearer realm="townhall mcp", error="invalid_token"',
    });
    response.end(
      JSON.stringify({
        jsonrpc: '2.0',
        error: {
          code: -32001,
          message:
            'Unauthorized: send Authorization: Bearer <token>, the token townhall mcp --http printed on its stderr (or the one in its --token-file)',
        },
        id: null,
      }),
    );
    return false;
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
