import { DomainError, PROBLEM_CODES, type FieldError, type ProblemCode } from '@townhall/contracts';
import { AuthError } from '@townhall/auth';
import { encodePaymentRequiredHeader, type PaymentRequiredBody } from '@townhall/x402';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authFailures } from '../http-metrics.js';

/** RFC 9457 problem details, as docs/protocol/errors.md shapes them. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  requestId: string;
  errors?: FieldError[];
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
export const RETRY_AFTER_SECONDS = 1;
/**
 * The statuses that tell a client to come back (with Retry-After): rate limited (429), a
 * dependency or service that is down (503), a service that did not answer in time (504).
 */
export const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503, 504]);

/** Everything the gateway can be asked to answer for, reduced to a code, a detail and field errors. */
export function toDomainError(error: unknown): DomainError | undefined {
  if (error instanceof DomainError) return error;
  if (error instanceof AuthError) return new DomainError(error.code, error.message);
  const fastify = fastifyErrorCode(error);
  if (fastify) return fastify;
  return undefined;
}

/** Errors Fastify raises itself, before any route runs (body parsing, routing). */
function fastifyErrorCode(error: unknown): DomainError | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  switch ((error as { code?: unknown }).code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new DomainError('request.body_too_large', 'The body is larger than 64 KiB');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new DomainError('request.unsupported_media_type', 'Send bodies as application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new DomainError(
        'request.malformed_json',
        'The content-type is application/json but the body is empty',
      );
    default: {
      // Any other client error Fastify raises still gets a code; its 5xx stay bugs.
      const status = (error as { statusCode?: unknown }).statusCode;
      return typeof status === 'number' && status >= 400 && status < 500
        ? new DomainError('request.malformed', 'The request is not acceptable')
        : undefined;
    }
  }
}

/** A problem body may carry extension members (RFC 9457), e.g. the x402 fields of a 402. */
export type ProblemBody = Problem & Record<string, unknown>;

export function buildProblem(error: DomainError, requestId: string, baseUrl: string): ProblemBody {
  const problem: ProblemBody = {
    type: `${baseUrl}/docs/errors/${error.code}`,
    title: PROBLEM_CODES[error.code].title,
    status: PROBLEM_CODES[error.code].status,
    detail: error.message,
    code: error.code,
    requestId,
  };
  if (error.errors?.length) problem.errors = error.errors;
  // x402 clients read `x402Version`, `error` and `accepts` from the body of a 402: they are
  // extension members here, so the answer is problem+json and an x402 PaymentRequired at once.
  const x402 = paymentRequiredOf(error);
  return x402 ? { ...x402, ...problem } : problem;
}

/**
 * A refusal that knows when it ends (a limit per hour, a key that expires) says so in the
 * extension `retryAfterSeconds`; the rest are asked to come back in a second.
 */
function retryAfterSecondsOf(error: DomainError): number | undefined {
  const seconds = error.extensions?.['retryAfterSeconds'];
  return typeof seconds === 'number' && Number.isInteger(seconds) && seconds > 0 ? seconds : undefined;
}

function paymentRequiredOf(error: DomainError): PaymentRequiredBody | undefined {
  const x402 = error.extensions?.['x402'];
  return typeof x402 === 'object' && x402 !== null && 'accepts' in x402
    ? (x402 as PaymentRequiredBody)
    : undefined;
}

/**
 * The x402 v2 extensions the service declared for its 402 (payment-identifier, its signed offers,
 * bazaar): they go in the v2 `PAYMENT-REQUIRED` header only, whose accepts the offers sign.
 */
function x402ExtensionsOf(error: DomainError): Record<string, unknown> | undefined {
  const extensions = error.extensions?.['x402Extensions'];
  return typeof extensions === 'object' && extensions !== null && !Array.isArray(extensions)
    ? (extensions as Record<string, unknown>)
    : undefined;
}

/** Writes a problem response with the headers its status calls for. */
export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  error: DomainError,
  audience: string,
): FastifyReply {
  const problem = buildProblem(error, request.id, audience);
  if (error.code.startsWith('auth.')) authFailures.inc({ code: error.code });
  if (problem.status === 401) reply.header('www-authenticate', `service realm="${audience}"`);
  if (RETRY_AFTER_STATUSES.has(problem.status))
    reply.header('retry-after', String(retryAfterSecondsOf(error) ?? RETRY_AFTER_SECONDS));
  const x402 = paymentRequiredOf(error);
  if (x402)
    reply.header('payment-required', encodePaymentRequiredHeader(x402, undefined, x402ExtensionsOf(error)));
  return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}
