import { Injectable } from '@nestjs/common';
import type { DirectoryCardList } from '@townhall/contracts';
import { CardBook } from './card-book.js';
import { toCard } from './card-row.js';

/** Several agents' cards in one read: those that have one, in the order asked, each once. */
@Injectable()
export class GetCards {
  constructor(private readonly book: CardBook) {}

  async get(agentIds: readonly string[]): Promise<DirectoryCardList> {
    const asked = [...new Set(agentIds)];
    const rows = new Map((await this.book.byAgentIds([asked])).map((row) => [row.agent_id, row]));
    return { items: asked.flatMap((agentId) => (rows.has(agentId) ? [toCard(rows.get(agentId)!)] : [])) };
  }
}
