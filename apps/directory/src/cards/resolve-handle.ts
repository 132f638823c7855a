import { Injectable } from '@nestjs/common';
import { DomainError, type DirectoryCard } from '@townhall/contracts';
import { CardBook } from './card-book.js';
import { toCard } from './card-row.js';

/** The card of the agent holding a handle, whatever its case: 404 directory.handle_not_found when none does. */
@Injectable()
export class ResolveHandle {
  constructor(private readonly book: CardBook) {}

  async resolve(handle: string): Promise<DirectoryCard> {
    const [row] = await this.book.byHandle([handle]);
    if (!row) throw new DomainError('directory.handle_not_found', `No agent holds @${handle}`);
    return toCard(row);
  }
}
