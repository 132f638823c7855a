import { Injectable } from '@nestjs/common';
import { DirectoryTopics, DomainError, type PutCardReply } from '@townhall/contracts';
import { OutboxWriter, sqlState } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import { CardBook } from './card-book.js';
import { CARD_COLUMNS, toCard, type CardRow } from './card-row.js';

export interface CardFields {
  handle: string;
  displayName?: string | null | undefined;
  bio?: string | null | undefined;
  avatarUrl?: string | null | undefined;
  links?: CardRow['links'] | null | undefined;
}

/** A PUT that lost a race to the same agent's own concurrent PUT runs again, this often at most. */
const PUT_ATTEMPTS = 3;

/** An agent makes or replaces its own card; its handle is its own or a 409. */
@Injectable()
export class PutCard {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly book: CardBook,
  ) {}

  /**
   * PUT semantics: the caller's card becomes exactly what was sent (omitted fields are
   * cleared). One statement, so a concurrent PUT for the same handle by another agent
   * fails on the unique index instead of racing a read; announced (`townhall.card.updated`)
   * in its transaction.
   */
  async put(agentId: string, fields: CardFields): Promise<PutCardReply> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.outbox.run((manager) => this.write(manager, agentId, fields));
      } catch (error) {
        const { code, constraint } = sqlState(error);
        if (code !== '23505' || constraint !== 'cards_handle_key') throw error;
        // ON CONFLICT arbitrates agent_id only: two first PUTs of one agent at once both
        // insert, and the later fails on the handle's index against its own twin. Once the
        // twin has committed, the statement again takes the update path.
        const [holder] = await this.book.byHandle([fields.handle]);
        if ((holder && holder.agent_id !== agentId) || attempt === PUT_ATTEMPTS) {
          throw new DomainError('directory.handle_taken', `@${fields.handle} belongs to another agent`);
        }
      }
    }
  }

  private async write(manager: EntityManager, agentId: string, fields: CardFields): Promise<PutCardReply> {
    const rows: Array<CardRow & { created: boolean }> = await manager.query(
      `INSERT INTO directory.cards AS c (agent_id, handle, display_name, bio, avatar_url, links)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb)
       ON CONFLICT (agent_id) DO UPDATE SET
         handle = EXCLUDED.handle, display_name = EXCLUDED.display_name, bio = EXCLUDED.bio,
         avatar_url = EXCLUDED.avatar_url, links = EXCLUDED.links, updated_at = now()
       RETURNING ${CARD_COLUMNS}, (xmax = 0) AS created`,
      [
        agentId,
        fields.handle,
        fields.displayName ?? null,
        fields.bio ?? null,
        fields.avatarUrl ?? null,
        JSON.stringify(fields.links ?? []),
      ],
    );
    const row = rows[0];
    if (!row) throw new Error('upsert returned no row');
    const card = toCard(row);
    await this.outbox.announce(manager, [
      { type: DirectoryTopics.cardUpdated, subject: agentId, data: card },
    ]);
    return { card, created: row.created };
  }
}
