import { Inject, Injectable } from '@nestjs/common';
import {
  CodeSchema,
  CursorKey,
  cursorCodec,
  DomainError,
  type CodeView,
  type Page,
} from '@townhall/contracts';
import { CLOCK, type Clock, queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { codeProblem } from '../db/functions.js';
import { CODE_COLUMNS, toCode, type CodeRow } from './code-row.js';
import { pageOfRows } from '../db/page-of-rows.js';

/** Codes page by (created_at, code_key): oldest first. */
const CODE_CURSOR = cursorCodec(
  z.tuple([CursorKey.instant, CodeSchema.refine((key) => key === key.toLowerCase())]),
);

/** Reading an event's codes: the host's list, and the code an RSVP sends. */
@Injectable()
export class CodeBook {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async page(eventId: string, limit: number, cursor: string | undefined): Promise<Page<CodeView>> {
    const after = cursor ? CODE_CURSOR.decode(cursor) : null;
    const rows = await queryRows<CodeRow>(
      this.dataSource,
      `SELECT ${CODE_COLUMNS} FROM ticketing.codes WHERE event_id = $1
       ${after ? 'AND (created_at, code_key) > ($2::timestamptz, $3)' : ''}
       ORDER BY created_at, code_key LIMIT ${limit + 1}`,
      after ? [eventId, ...after] : [eventId],
    );
    return pageOfRows(rows, limit, toCode, (last) =>
      CODE_CURSOR.encode([last.created_at.toISOString(), last.code_key]),
    );
  }

  /**
   * The code an RSVP sends, if it can be used now: 404 `code.not_found`, 409 `code.expired` or
   * `code.exhausted` otherwise. A read without locks, so a sale that cannot use it says so before
   * any payment; ticketing.use_code, in the transaction that issues the ticket, has the last word.
   */
  async usable(eventId: string, code: string): Promise<CodeRow> {
    const [row] = await queryRows<CodeRow>(
      this.dataSource,
      `SELECT ${CODE_COLUMNS} FROM ticketing.codes WHERE event_id = $1 AND code_key = lower($2)`,
      [eventId, code],
    );
    if (!row) throw codeProblem('code_not_found');
    if (row.expires_at !== null && row.expires_at <= this.clock()) throw codeProblem('code_expired');
    if (row.max_uses !== null && row.uses >= row.max_uses) throw codeProblem('code_exhausted');
    return row;
  }
}

/** The refusal of a code an event already has (in any case). */
export function codeTaken(code: string): DomainError {
  return new DomainError(
    'code.taken',
    `This event has the code ${code} already (codes are case-insensitive)`,
  );
}
