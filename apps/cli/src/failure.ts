import { TownhallError } from '@townhall/sdk';
import { KeyFileError } from '@townhall/sdk/key-file';

/** The command line itself is wrong (exit code 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The CLI refuses to go on, for a reason with a stable code (exit code 1), e.g. a price above --max-price. */
export class Refusal extends Error {
  override readonly name = 'Refusal';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Failure {
  /** What to print on stderr, one line each. */
  lines: string[];
  exitCode: 1 | 2;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** Whether the error is fetch failing to reach the server at all (nothing listening, no route). */
export function isUnreachable(error: unknown): boolean {
  // Duck-typed: fetch's TypeError may come from another realm (e.g. under a test runner's VM).
  if (typeof error !== 'object' || error === null || (error as Error).message !== 'fetch failed')
    return false;
  const cause = (error as { cause?: { code?: unknown; errors?: Array<{ code?: unknown }> } }).cause;
  if (typeof cause?.code === 'string' && NETWORK_CODES.has(cause.code)) return true;
  // Happy eyeballs (localhost is ::1 and 127.0.0.1) reports an AggregateError of both attempts.
  return (cause?.errors ?? []).some(
    (inner) => typeof inner.code === 'string' && NETWORK_CODES.has(inner.code),
  );
}

/** How a failed command is reported: `error <code>: <detail>` (plus details), and its exit code. */
export function describeFailure(error: unknown, url: string): Failure {
  if (error instanceof TownhallError) {
    const lines = [`error ${error.code}: ${error.problem.detail || error.problem.title}`];
    for (const field of error.problem.errors ?? []) lines.push(`  ${field.field}: ${field.message}`);
    const retryAfter = error.headers.get('retry-after');
    if (retryAfter) lines.push(`  retry after ${retryAfter} s`);
    return { lines, exitCode: 1 };
  }
  if (error instanceof KeyFileError) {
    const hint = {
      'key.not_found': 'create one with: townhall keygen (or name another with --key <file>)',
      'key.exists': 'keep it, or pass --force to replace it (the old key is lost)',
      'key.malformed': 'it must be a file written by: townhall keygen',
      'key.too_open': undefined,
    }[error.code];
    return { lines: [`error ${error.code}: ${error.message}`, ...(hint ? [`  ${hint}`] : [])], exitCode: 1 };
  }
  if (error instanceof Refusal) return { lines: [`error ${error.code}: ${error.message}`], exitCode: 1 };
  if (error instanceof UsageError) return { lines: [`error usage: ${error.message}`], exitCode: 2 };
  if (isUnreachable(error))
    return {
      lines: [
        `error network.unreachable: nothing answers at ${url}`,
        '  is Townhall running? Start it with: npm start (or point --url / TOWNHALL_URL at it)',
      ],
      exitCode: 1,
    };
  const message = error instanceof Error ? error.message : String(error);
  if (message === 'fetch failed') {
    // Any other transport failure (TLS, a port fetch refuses, a reset): say what fetch said.
    const cause = (error as { cause?: { message?: unknown } }).cause;
    const why = typeof cause?.message === 'string' && cause.message ? `: ${cause.message}` : '';
    return { lines: [`error network.failed: the request to ${url} failed${why}`], exitCode: 1 };
  }
  return { lines: [`error internal: ${message}`], exitCode: 1 };
}
