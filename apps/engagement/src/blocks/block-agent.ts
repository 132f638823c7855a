import { Injectable } from '@nestjs/common';
import { DomainError, EngagementTopics, type BlockView, type SignedMeta } from '@townhall/contracts';
import { OutboxWriter, queryRows } from '@townhall/platform/service';
import { Participants, requireNotBlocked, requireRole } from '../access/participants.js';
import { BLOCK_COLUMNS, toBlock, type BlockRow } from './block-row.js';

/**
 * Blocks (docs/product.md "Moderation"): moderators and the host stop one agent from taking part
 * in an event (questions, upvotes, reports, ballots, the stage), without touching its ticket. A
 * row of engagement.blocks per blocked agent; every write of that agent checks it (Participants),
 * and public question reads leave out its open and pending questions while it stands.
 */
@Injectable()
export class BlockAgent {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly participants: Participants,
  ) {}

  /**
   * Blocks (`blocked` true) or unblocks an agent; both idempotent (a repeat changes nothing and
   * announces nothing). The host cannot be blocked, and only the host blocks or unblocks a
   * moderator.
   */
  async block(meta: SignedMeta, eventId: string, agentId: string, blocked: boolean): Promise<BlockView> {
    const doing = blocked ? 'block agents' : 'unblock agents';
    const caller = await this.participants.authorize(eventId, meta, (participant) => {
      requireRole(participant, ['host', 'moderator'], doing);
      requireNotBlocked(participant);
      return participant;
    });
    if (agentId === caller.hostId) throw new DomainError('role.forbidden', 'The host cannot be blocked');
    if (caller.role !== 'host') {
      const target = await this.participants.authorize(eventId, { ...meta, caller: agentId }, (seen) => seen);
      if (target.role === 'moderator')
        throw new DomainError(
          'role.forbidden',
          `Only the host can ${blocked ? 'block' : 'unblock'} a moderator`,
        );
    }
    return this.outbox.run(async (manager) => {
      if (blocked) {
        const [row] = await queryRows<BlockRow>(
          manager,
          `INSERT INTO engagement.blocks (event_id, agent_id, blocked_by) VALUES ($1, $2, $3)
           ON CONFLICT (event_id, agent_id) DO NOTHING RETURNING ${BLOCK_COLUMNS}`,
          [eventId, agentId, meta.caller],
        );
        if (!row) {
          const [existing] = await queryRows<BlockRow>(
            manager,
            `SELECT ${BLOCK_COLUMNS} FROM engagement.blocks WHERE event_id = $1 AND agent_id = $2`,
            [eventId, agentId],
          );
          return toBlock(existing!);
        }
        const view = toBlock(row);
        // On the public live stream: viewers drop the agent's questions; who blocked stays unsaid.
        await this.outbox.announce(manager, [
          { type: EngagementTopics.participantBlocked, subject: eventId, data: { ...view, blockedBy: null } },
        ]);
        return view;
      }
      const removed = await queryRows<BlockRow>(
        manager,
        `DELETE FROM engagement.blocks WHERE event_id = $1 AND agent_id = $2 RETURNING ${BLOCK_COLUMNS}`,
        [eventId, agentId],
      );
      const view: BlockView = { eventId, agentId, blocked: false, blockedBy: null, blockedAt: null };
      if (removed.length > 0)
        await this.outbox.announce(manager, [
          { type: EngagementTopics.participantUnblocked, subject: eventId, data: view },
        ]);
      return view;
    });
  }
}
