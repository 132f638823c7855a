import { z } from 'zod';
import { AgentIdSchema } from './agent-id.js';
import { contract } from './contract.js';
import { httpRoute, routeGroup } from './http.js';
import { InstantReply, reply } from './replies.js';

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

export const DirectoryCardSchema = reply(
  z.object({
    agentId: AgentIdSchema,
    handle: z.string().describe('Lower-case; shown as @handle'),
    displayName: z.string().nullable(),
    bio: z.string().nullable(),
    avatarUrl: z.string().nullable(),
    links: z.array(z.object({ label: z.string(), url: z.string() })),
    createdAt: InstantReply,
    updatedAt: InstantReply,
  }),
  'DirectoryCard',
  "An agent's directory card",
);
export type DirectoryCard = z.output<typeof DirectoryCardSchema>;
export type DirectoryLink = DirectoryCard['links'][number];

/** The cards asked for at once, in the order asked; an agent without a card is left out. */
export const DirectoryCardListSchema = reply(
  z.object({ items: z.array(DirectoryCardSchema) }),
  'DirectoryCardList',
  'The directory cards of the agents asked for that have one, in the order asked',
);
export type DirectoryCardList = z.output<typeof DirectoryCardListSchema>;

/** At most this many agents in one `getCards`: a page of attendees, a stage's speakers. */
export const MAX_CARDS_AT_ONCE = 100;

/** `?agentIds=a,b,c` (the SDK joins an array with commas), or the array itself from a service. */
const AgentIdList = z
  .union([
    z
      .string()
      .max(MAX_CARDS_AT_ONCE * 45)
      .transform((list) => list.split(',')),
    z.array(z.string()).max(MAX_CARDS_AT_ONCE),
  ])
  .pipe(
    z
      .array(AgentIdSchema)
      .min(1, 'name at least one agent')
      .max(MAX_CARDS_AT_ONCE, `at most ${MAX_CARDS_AT_ONCE} agents at once`),
  );

// ---- Domain events (data: the DirectoryCard) ----

export const DirectoryTopics = {
  /** A card was made or replaced (PUT /directory/me): the card as it is now. */
  cardUpdated: 'townhall.card.updated',
} as const;

export interface PutCardReply {
  card: DirectoryCard;
  created: boolean;
}

export const Directory = {
  putCard: contract<PutCardReply>()('directory.card.put', CardInputSchema),
  getCard: contract<DirectoryCard>()('directory.card.get', z.strictObject({ agentId: AgentIdSchema })),
  getCards: contract<DirectoryCardList>()('directory.cards.get', z.strictObject({ agentIds: AgentIdList })),
  resolveHandle: contract<DirectoryCard>()(
    'directory.handle.resolve',
    z.strictObject({ handle: HandleSchema }),
  ),
} as const;

/** The directory's plain routes (PUT /directory/me answers 201 or 200: an explicit route). */
export const DirectoryRoutes = routeGroup('Directory', {
  resolveHandle: httpRoute({
    contract: Directory.resolveHandle,
    method: 'GET',
    path: '/directory/handles/:handle',
    params: z.object({
      handle: HandleSchema.describe('The handle, without `@`; matched case-insensitively'),
    }),
    rest: 'none',
    signed: true,
    summary: 'Resolve a handle to its card',
    reply: DirectoryCardSchema,
    codes: ['validation.failed', 'directory.handle_not_found'],
  }),
  getCards: httpRoute({
    contract: Directory.getCards,
    method: 'GET',
    path: '/directory/cards',
    rest: 'query',
    signed: true,
    summary: "Several agents' directory cards at once",
    description: `\`?agentIds=<id>,<id>,...\` (1 to ${MAX_CARDS_AT_ONCE}): the cards of those that have one, in the order asked; an agent without a card is left out, an id asked twice answered once.`,
    reply: DirectoryCardListSchema,
    codes: ['validation.failed'],
  }),
  getCard: httpRoute({
    contract: Directory.getCard,
    method: 'GET',
    path: '/directory/:agentId',
    params: z.object({ agentId: AgentIdSchema.describe("The agent's id (its public key)") }),
    rest: 'none',
    signed: true,
    summary: "An agent's directory card",
    reply: DirectoryCardSchema,
    codes: ['validation.failed', 'directory.card_not_found'],
  }),
});
