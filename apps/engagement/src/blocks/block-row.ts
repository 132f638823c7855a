import type { BlockView } from '@townhall/contracts';

/** A row of engagement.blocks (see the migrations): one per agent blocked in an event. */
export interface BlockRow {
  seq: string;
  event_id: string;
  agent_id: string;
  blocked_by: string;
  created_at: Date;
}

export const BLOCK_COLUMNS = 'seq, event_id, agent_id, blocked_by, created_at';

export function toBlock(row: BlockRow): BlockView {
  return {
    eventId: row.event_id,
    agentId: row.agent_id,
    blocked: true,
    blockedBy: row.blocked_by,
    blockedAt: row.created_at.toISOString(),
  };
}
