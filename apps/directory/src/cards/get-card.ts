import { Injectable } from '@nestjs/common';
import { DomainError, type DirectoryCard } from '@townhall/contracts';
import { CardBook } from './card-book.js';
import { toCard } from './card-row.js';

/** An agent's card, by its agentId: 404 directory.card_not_found when it has none. */
@Injectable()
export class GetCard {
  constructor(private readonly book: CardBook) {}

  async get(agentId: string): Promise<DirectoryCard> {
    const [row] = await this.book.byAgentId([agentId]);
    if (!row) throw new DomainError('directory.card_not_found', `Agent ${agentId} has no directory card`);
    return toCard(row);
  }
}
