import type { CodeView } from '@townhall/contracts';

/** A row of ticketing.codes. */
export interface CodeRow {
  event_id: string;
  code_key: string;
  code: string;
  percent_off: number | null;
  amount_off: string | null;
  free: boolean;
  max_uses: number | null;
  uses: number;
  tier_ids: string[] | null;
  unlocks_tier_ids: string[];
  expires_at: Date | null;
  created_at: Date;
}

export const CODE_COLUMNS =
  'event_id, code_key, code, percent_off, amount_off::text AS amount_off, free, max_uses, uses, tier_ids, unlocks_tier_ids, expires_at, created_at';

export function toCode(row: CodeRow): CodeView {
  return {
    eventId: row.event_id,
    code: row.code,
    percentOff: row.percent_off,
    amountOff: row.amount_off,
    free: row.free,
    maxUses: row.max_uses,
    uses: row.uses,
    tierIds: row.tier_ids,
    unlocksTierIds: row.unlocks_tier_ids,
    expiresAt: row.expires_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}
