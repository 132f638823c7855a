import { z } from 'zod';
import { busSchema } from './bus-schemas.js';
import { PROBLEM_CODES, isProblemCode, type ProblemCode } from './problem-codes.js';

/** One invalid field of a request: `field` is a dotted path into the body or query. */
export interface FieldError {
  field: string;
  message: string;
}

/** What travels back over the bus when a handler fails; the gateway turns it into problem+json. */
export interface RemoteError {
  code: ProblemCode;
  detail: string;
  errors?: FieldError[];
  /** Extra members of the problem body (RFC 9457 extensions), e.g. the x402 fields of a 402. */
  extensions?: Record<string, unknown>;
}

/** RemoteError on the bus (the AsyncAPI document); bus-schemas.spec.ts checks it is the same type. */
export const RemoteErrorSchema = busSchema(
  z.object({
    code: z.enum(Object.keys(PROBLEM_CODES) as [ProblemCode, ...ProblemCode[]]),
    detail: z.string(),
    errors: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .describe('Validation failures: one per invalid field'),
    extensions: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Extra members of the problem body, e.g. the x402 fields of a 402'),
  }),
  'RemoteError',
  "A service's refusal: the gateway answers it as problem+json with the code's status",
);

/**
 * The one error type of the domain. Services throw it, the bus carries it as a
 * RemoteError, and the gateway maps it to problem+json by its code.
 */
export class DomainError extends Error {
  override readonly name = 'DomainError';

  constructor(
    readonly code: ProblemCode,
    detail: string,
    readonly errors?: FieldError[],
    readonly extensions?: Record<string, unknown>,
  ) {
    super(detail);
  }

  get status(): number {
    return PROBLEM_CODES[this.code].status;
  }

  toRemote(): RemoteError {
    return {
      code: this.code,
      detail: this.message,
      ...(this.errors ? { errors: this.errors } : {}),
      ...(this.extensions ? { extensions: this.extensions } : {}),
    };
  }

  static fromRemote(value: unknown): DomainError {
    if (typeof value === 'object' && value !== null) {
      const { code, detail, errors, extensions } = value as Partial<RemoteError>;
      if (isProblemCode(code)) {
        return new DomainError(
          code,
          typeof detail === 'string' ? detail : PROBLEM_CODES[code].title,
          Array.isArray(errors) ? errors : undefined,
          typeof extensions === 'object' && extensions !== null ? extensions : undefined,
        );
      }
    }
    return new DomainError('internal.error', 'The service answered with an unrecognised error');
  }
}
