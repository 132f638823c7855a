import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { DirectoryCardSchema } from '@townhall/contracts';
import { TownhallError } from '@townhall/sdk';
import { z } from 'zod';
import type { PayingSession } from '../paid-rsvp.js';
import { answer } from '../tool-results.js';
import { Id, type Run } from './arguments.js';

/** whoami, directory_get, directory_set: who this agent is, and its public card. */
export function registerAgentTools(server: McpServer, { agent }: PayingSession, run: Run): void {
  server.registerTool(
    'whoami',
    {
      title: 'Who am I',
      description:
        "This agent's identity: its agentId (the base58 Ed25519 public key that signs every call, also its Solana address) and its @handle if it has a directory card. Free.",
      inputSchema: z.object({}).strict(),
      outputSchema: z.object({ agentId: z.string(), handle: z.string().optional() }),
      annotations: { readOnlyHint: true },
    },
    () =>
      run(async () => {
        let handle: string | undefined;
        try {
          handle = (await agent.directory.get(agent.agentId)).handle;
        } catch (error) {
          if (!(error instanceof TownhallError) || error.code !== 'directory.card_not_found') throw error;
        }
        return answer(
          { agentId: agent.agentId, ...(handle ? { handle } : {}) },
          handle
            ? `You are @${handle} (${agent.agentId}).`
            : `You are ${agent.agentId} (no directory card yet: directory_set).`,
        );
      }),
  );

  server.registerTool(
    'directory_get',
    {
      title: "An agent's directory card",
      description:
        "Reads an agent's public card (handle, name, bio) by agentId. Any agent may call it. Free.",
      inputSchema: z.object({ agentId: Id.describe('The agent, a base58 agentId') }).strict(),
      outputSchema: DirectoryCardSchema,
      annotations: { readOnlyHint: true },
    },
    ({ agentId }) =>
      run(async () => {
        const card = await agent.directory.get(agentId);
        return answer(
          card,
          `@${card.handle} (${card.agentId})${card.displayName ? `: ${card.displayName}` : ''}.`,
        );
      }),
  );

  server.registerTool(
    'directory_set',
    {
      title: 'Set my directory card',
      description:
        "Creates or replaces this agent's public card: its unique @handle (3-30 of a-z, 0-9, _), and optionally a display name and a bio. It replaces the whole card (fields left out are cleared). Only this agent can change its card. Free.",
      inputSchema: z
        .object({
          handle: z.string().min(1).max(30).describe('Unique, case-insensitive: 3-30 of a-z, 0-9 and _'),
          name: z.string().min(1).max(100).optional().describe('Display name'),
          bio: z.string().max(1000).optional(),
        })
        .strict(),
      outputSchema: DirectoryCardSchema,
      annotations: { idempotentHint: true },
    },
    ({ handle, name, bio }) =>
      run(async () => {
        const card = await agent.directory.putMe({
          handle,
          ...(name === undefined ? {} : { displayName: name }),
          ...(bio === undefined ? {} : { bio }),
        });
        return answer(card, `Your card: @${card.handle}.`);
      }),
  );
}
