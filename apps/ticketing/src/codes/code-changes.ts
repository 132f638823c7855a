import { Inject, Injectable } from '@nestjs/common';
import { DomainError, type CodeView, type CreateCode, type SignedMeta } from '@townhall/contracts';
import { CLOCK, type Clock, queryRows } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { hostedEvent } from '../access/hosted-event.js';
import { codeProblem } from '../db/functions.js';
import { tiersOf, type EventRow } from '../projection/event-row.js';
import { EventsProjection } from '../projection/events-projection.js';
import { codeTaken } from './code-book.js';
import { CODE_COLUMNS, toCode, type CodeRow } from './code-row.js';

/**
 * The host's codes (docs/product.md "Codes"): created once per event in any case (409
 * `code.taken`), naming only the event's tiers (and only hidden ones to unlock), and removed;
 * tickets that carry a removed code keep it.
 */
@Injectable()
export class CodeChanges {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventsProjection,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  hostsEvent(meta: SignedMeta, eventId: string): Promise<EventRow> {
    return hostedEvent(this.events, meta, eventId, 'manages its codes');
  }

  async create(meta: SignedMeta, code: CreateCode): Promise<CodeView> {
    const event = await this.hostsEvent(meta, code.eventId);
    requireTiers(event, code);
    const [row] = await queryRows<CodeRow>(
      this.dataSource,
      `INSERT INTO ticketing.codes (event_id, code_key, code, percent_off, amount_off, free, max_uses,
         tier_ids, unlocks_tier_ids, expires_at, created_at)
       VALUES ($1, lower($2), $2, $3, $4::numeric, $5, $6, $7::text[], $8::text[], $9, $10)
       ON CONFLICT (event_id, code_key) DO NOTHING
       RETURNING ${CODE_COLUMNS}`,
      [
        event.event_id,
        code.code,
        code.percentOff ?? null,
        code.amountOff ?? null,
        code.free ?? false,
        code.maxUses ?? null,
        code.tierIds ?? null,
        code.unlocksTierIds ?? [],
        code.expiresAt ?? null,
        this.clock(),
      ],
    );
    if (!row) throw codeTaken(code.code);
    return toCode(row);
  }

  async remove(meta: SignedMeta, eventId: string, code: string): Promise<CodeView> {
    const event = await this.hostsEvent(meta, eventId);
    const [row] = await queryRows<CodeRow>(
      this.dataSource,
      `DELETE FROM ticketing.codes WHERE event_id = $1 AND code_key = lower($2) RETURNING ${CODE_COLUMNS}`,
      [event.event_id, code],
    );
    if (!row) throw codeProblem('code_not_found');
    return toCode(row);
  }
}

/**
 * A code gives at most one discount, and unlocks hidden tiers if it gives none; it names the
 * event's tiers only, and unlocks only tiers that are hidden.
 */
function requireTiers(event: EventRow, code: CreateCode): void {
  const tiers = tiersOf(event.ticketing, event.capacity);
  const issues: Array<{ field: string; message: string }> = [];
  const discounts = [code.percentOff, code.amountOff, code.free].filter((d) => d !== undefined).length;
  if (discounts > 1)
    issues.push({ field: 'percentOff', message: 'give one of percentOff, amountOff and free' });
  if (discounts === 0 && code.unlocksTierIds === undefined)
    issues.push({
      field: 'percentOff',
      message: 'a code gives a discount (percentOff, amountOff or free) or unlocks hidden tiers',
    });
  const unknown = (code.tierIds ?? []).filter((id) => !tiers.some((tier) => tier.tierId === id));
  if (unknown.length > 0)
    issues.push({ field: 'tierIds', message: `not tiers of the event: ${unknown.join(', ')}` });
  const notHidden = (code.unlocksTierIds ?? []).filter(
    (id) => !tiers.some((tier) => tier.tierId === id && tier.hidden),
  );
  if (notHidden.length > 0)
    issues.push({
      field: 'unlocksTierIds',
      message: `not hidden tiers of the event: ${notHidden.join(', ')}`,
    });
  if (issues.length > 0)
    throw new DomainError('validation.failed', 'A code names the tiers of its event', issues);
}
