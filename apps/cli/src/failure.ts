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
  /**
   * What `--json` prints on stderr instead: the server's problem+json as it came, or
   * `{ "error": { "code", "message" } }` for the CLI's own errors; either with `hint` when the
   * human form has one.
   */
  json: Record<string, unknown>;
  exitCode: 1 | 2;
}

/** The audience a signed request was signed for, and where that came from (for the 401 hint). */
export interface SignedFor {
  audience: string;
  /** e.g. `--audience`, `TOWNHALL_AUDIENCE`, `the origin of --url`. */
  from: string;
}

/** One of the CLI's own errors: `error <code>: <message>` plus an indented hint. */
function local(code: string, message: string, exitCode: 1 | 2, hint?: string): Failure {
  return {
    lines: [`error ${code}: ${message}`, ...(hint ? [`  ${hint}`] : [])],
    json: { error: { code, message, ...(hint ? { hint } : {}) } },
    exitCode,
  };
}

/** The `realm` of `WWW-Authenticate: service realm="<audience>"`: the audience the server checks. */
export function realmOf(headers: Headers): string | undefined {
  const match = /realm="([^"]*)"/.exec(headers.get('www-authenticate') ?? '');
  return match?.[1] || undefined;
}

/**
 * Why a signature may not verify: most often the request was signed for another audience than the
 * server's PUBLIC_BASE_URL (`http://localhost:3000` and `http://127.0.0.1:3000` differ).
 */
export function audienceHint(signedFor: SignedFor, serverAudience: string | undefined): string[] {
  const ours = `signed for the audience ${signedFor.audience} (${signedFor.from})`;
  if (serverAudience === undefined)
    return [
      `${ours}; the server checks signatures against its PUBLIC_BASE_URL (http://localhost:3000 and http://127.0.0.1:3000 differ)`,
      'if they differ, pass --audience <its PUBLIC_BASE_URL> (or set TOWNHALL_AUDIENCE)',
    ];
  if (serverAudience.replace(/\/+$/, '') === signedFor.audience.replace(/\/+$/, ''))
    return [
      `${ours}, which is the server's audience too: was the request changed on the way (a proxy rewriting the path, query or body)?`,
    ];
  return [
    `${ours}, but the server's audience (its PUBLIC_BASE_URL) is ${serverAudience}`,
    `sign for it with: --audience ${serverAudience} (or TOWNHALL_AUDIENCE=${serverAudience})`,
  ];
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

/**
 * How a failed command is reported: `error <code>: <detail>` (plus details) for a person, the
 * problem or `{ error: { code, message } }` for `--json`, and its exit code.
 */
export function describeFailure(error: unknown, url: string, signedFor?: SignedFor): Failure {
  if (error instanceof TownhallError) {
    const detail = error.problem.detail || error.problem.title;
    const lines = [`error ${error.code}: ${detail}`];
    // A validation problem's detail is its first field error: print that one once.
    for (const field of error.problem.errors ?? []) {
      const line = `${field.field}: ${field.message}`;
      if (line !== detail) lines.push(`  ${line}`);
    }
    const retryAfter = error.headers.get('retry-after');
    if (retryAfter) lines.push(`  retry after ${retryAfter} s`);
    const hint =
      error.code === 'auth.signature_invalid' && signedFor
        ? audienceHint(signedFor, realmOf(error.headers))
        : [];
    lines.push(...hint.map((line) => `  ${line}`));
    return {
      lines,
      json: { ...error.problem, ...(hint.length > 0 ? { hint: hint.join('; ') } : {}) },
      exitCode: 1,
    };
  }
  if (error instanceof KeyFileError) {
    const hint = {
      'key.not_found': 'create one with: townhall keygen (or name another with --key <file>)',
      'key.exists': 'keep it, or pass --force to replace it (the old key is lost)',
      'key.malformed': 'it must be a file written by: townhall keygen',
      'key.too_open': undefined,
    }[error.code];
    return local(error.code, error.message, 1, hint);
  }
  if (error instanceof Refusal) return local(error.code, error.message, 1);
  if (error instanceof UsageError) return local('usage', error.message, 2);
  if (isUnreachable(error))
    return local(
      'network.unreachable',
      `nothing answers at ${url}`,
      1,
      'is Townhall running? Start it with: npm start (or point --url / TOWNHALL_URL at it)',
    );
  const message = error instanceof Error ? error.message : String(error);
  if (message === 'fetch failed') {
    // Any other transport failure (TLS, a port fetch refuses, a reset): say what fetch said.
    const cause = (error as { cause?: { message?: unknown } }).cause;
    const why = typeof cause?.message === 'string' && cause.message ? `: ${cause.message}` : '';
    return local('network.failed', `the request to ${url} failed${why}`, 1);
  }
  return local('internal', message, 1);
}
