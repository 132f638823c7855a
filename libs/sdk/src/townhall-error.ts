/** The problem+json body every non-2xx answer carries (docs/protocol/errors.md). */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  requestId: string;
  errors?: Array<{ field: string; message: string }>;
  [extension: string]: unknown;
}

/** Thrown for every non-2xx answer; switch on `code`, never on the message. */
export class TownhallError extends Error {
  override readonly name = 'TownhallError';
  readonly status: number;
  readonly code: string;

  constructor(
    readonly problem: ProblemBody,
    readonly headers: Headers,
  ) {
    super(`${problem.code}: ${problem.detail}`);
    this.status = problem.status;
    this.code = problem.code;
  }
}
