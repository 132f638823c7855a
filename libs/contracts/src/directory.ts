import { z } from 'zod';
import { AgentIdSchema } from './agent-id.js';
import { contract } from './contract.js';

/** Handles are shown as @handle; matching is case-insensitive, so they are stored lower-case. */
export const HandleSchema = z
  .string()
  .transform((value) => value.toLowerCase())
  .pipe(z.string().regex(/^[a-z0-9_]{3,30}$/, 'must be 3 to 30 characters of a-z, 0-9 and _'));

const HttpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2048);

export const DirectoryLinkSchema = z.strictObject({
  label: z.string().trim().min(1).max(50),
  url: HttpUrl,
});

export const CardInputSchema = z.strictObject({
  handle: HandleSchema,
  displayName: z.string().trim().min(1).max(100).nullish(),
  bio: z.string().max(1000).nullish(),
  avatarUrl: HttpUrl.nullish(),
  links: z.array(DirectoryLinkSchema).max(10).nullish(),
});
export type CardInput = z.input<typeof CardInputSchema>;

export interface DirectoryLink {
  label: string;
  url: string;
}

export interface DirectoryCard {
  agentId: string;
  handle: string;
  displayName: string | null;
  bio: string | null;
  avatarUrl: string | null;
  links: DirectoryLink[];
  createdAt: string;
  updatedAt: string;
}

export interface PutCardReply {
  card: DirectoryCard;
  created: boolean;
}

export const Directory = {
  putCard: contract<PutCardReply>()('directory.card.put', CardInputSchema),
  getCard: contract<DirectoryCard>()('directory.card.get', z.strictObject({ agentId: AgentIdSchema })),
  resolveHandle: contract<DirectoryCard>()(
    'directory.handle.resolve',
    z.strictObject({ handle: HandleSchema }),
  ),
} as const;
