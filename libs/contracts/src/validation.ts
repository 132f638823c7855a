import type { z } from 'zod';
import { DomainError, type FieldError } from './domain-error.js';

/** Parses with a contract schema; a failure becomes `validation.failed` with one entry per field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors: FieldError[] = result.error.issues.map((issue) => ({
    field: issue.path.map(String).join('.') || '(body)',
    message: issue.message,
  }));
  const first = errors[0];
  throw new DomainError(
    'validation.failed',
    first ? `${first.field}: ${first.message}` : 'Invalid request',
    errors,
  );
}
