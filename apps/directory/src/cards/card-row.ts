import type { DirectoryCard, DirectoryLink } from '@townhall/contracts';

/** A row of directory.cards (see the migrations). */
export interface CardRow {
  agent_id: string;
  handle: string;
  display_name: string | null;
  bio: string | null;
  avatar_url: string | null;
  links: DirectoryLink[];
  created_at: Date;
  updated_at: Date;
}

export const CARD_COLUMNS = 'agent_id, handle, display_name, bio, avatar_url, links, created_at, updated_at';

export function toCard(row: CardRow): DirectoryCard {
  return {
    agentId: row.agent_id,
    handle: row.handle,
    displayName: row.display_name,
    bio: row.bio,
    avatarUrl: row.avatar_url,
    links: row.links,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
