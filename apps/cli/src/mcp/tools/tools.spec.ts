import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AgentClient } from '@townhall/sdk';
import { anEventView } from '@townhall/testing';
import { Budget } from '../budget.js';
import type { PayingSession } from '../paid-rsvp.js';
import { PaymentFollowUp } from '../payment-follow-up.js';
import { registerTools } from './index.js';

const HOST = '7zY1zThH8MiGHiiutWjXrY4m9vReseAfUhFsV7CpVyof';
const BOB = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const CAROL = 'GjwcWFQYzemBtpUoN5fMAP2FZviTtMRWCmrppGuTthJS';

/** An invite-only event, as the events service answers it. */
const CLOSED_AMA = anEventView({
  id: 'e1',
  title: 'Closed AMA',
  endsAt: '2027-03-04T19:00:00.000Z',
  hostId: HOST,
  access: 'invite',
  status: 'scheduled',
});

/** What the fake Townhall answers to `METHOD /path`: a status and a JSON body. */
type Answer = (route: string, body: unknown) => { status: number; body: unknown };

/**
 * The tools on an in-memory MCP connection, their agent's requests answered by `answer` and
 * recorded as `METHOD /path body`.
 */
async function connected(answer: Answer) {
  const seen: string[] = [];
  const agent = new AgentClient({
    baseUrl: 'http://townhall.test',
    fetch: async (url, init) => {
      const route = `${init?.method} ${new URL(String(url)).pathname}`;
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
      seen.push(body === undefined ? route : `${route} ${JSON.stringify(body)}`);
      const reply = answer(route, body);
      return new Response(JSON.stringify(reply.body), {
        status: reply.status,
        headers: {
          'content-type': reply.status >= 400 ? 'application/problem+json' : 'application/json',
        },
      });
    },
  });
  const budget = new Budget(0n);
  const followUp = new PaymentFollowUp(
    budget,
    async () => false,
    () => undefined,
  );
  const server = new McpServer({ name: 'townhall', version: '0.0.0' });
  const session: PayingSession = { agent, budget, followUp, server };
  registerTools(server, session);
  const client = new Client({ name: 'spec', version: '0.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    client,
    call,
    seen,
    close: async () => {
      await client.close();
      await server.close();
      followUp.close();
    },
  };
}

const problem = (status: number, code: string, detail: string) => ({
  status,
  body: { type: 'about:blank', title: detail, status, detail, code, requestId: 'r1' },
});

const textOf = (result: CallToolResult) => {
  const [first] = result.content;
  return first?.type === 'text' ? first.text : '';
};

describe('the MCP tools', () => {
  it('lists every tool, each with an input and an output schema and a description for a model', async () => {
    const mcp = await connected(() => ({ status: 200, body: {} }));
    try {
      const { tools } = await mcp.client.listTools();
      // The whole list is pinned against a real server (test/e2e/mcp.e2e-spec.ts).
      expect(tools.map((tool) => tool.name)).toContain('invite_add');
      for (const tool of tools) {
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.outputSchema?.type).toBe('object');
        expect(tool.description?.length).toBeGreaterThan(40);
      }
      const invite = tools.find((tool) => tool.name === 'invite_add')!;
      expect(invite.description).toMatch(/Only the host may call it/);
      expect(invite.description).toContain('access.not_invited');
      expect(invite.inputSchema.required).toEqual(['eventId', 'agentIds']);
      expect(invite.inputSchema.properties?.['agentIds']).toMatchObject({
        type: 'array',
        minItems: 1,
        maxItems: 100,
        items: { type: 'string', pattern: expect.any(String) },
      });
      expect(Object.keys(invite.outputSchema?.properties ?? {}).sort()).toEqual(['added', 'invites']);
      const create = tools.find((tool) => tool.name === 'event_create')!;
      expect(create.inputSchema.properties?.['access']).toMatchObject({ enum: ['open', 'invite'] });
    } finally {
      await mcp.close();
    }
  });

  it('invite_add invites as the host and says how many were new', async () => {
    const invite = (agentId: string) => ({
      eventId: 'e1',
      agentId,
      invitedBy: HOST,
      invitedAt: '2027-03-01T10:00:00.000Z',
    });
    const mcp = await connected(() => ({
      status: 200,
      body: { invites: [invite(BOB), invite(CAROL)], added: 1 },
    }));
    try {
      const result = await mcp.call('invite_add', { eventId: 'e1', agentIds: [BOB, CAROL, BOB] });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ invites: [invite(BOB), invite(CAROL)], added: 1 });
      expect(textOf(result)).toBe('Invited 1 new agent to e1 (1 invited before).');
      // An agent named twice is invited once.
      expect(mcp.seen).toEqual([`POST /events/e1/invites {"agentIds":["${BOB}","${CAROL}"]}`]);
    } finally {
      await mcp.close();
    }
  });

  it("invite_add: Townhall's refusals are tool errors with their code, a bad list never leaves", async () => {
    const mcp = await connected(() => problem(403, 'role.forbidden', 'Only the host may invite'));
    try {
      const forbidden = await mcp.call('invite_add', { eventId: 'e1', agentIds: [BOB] });
      expect(forbidden.isError).toBe(true);
      expect(forbidden.structuredContent).toBeUndefined();
      expect(JSON.parse(textOf(forbidden))).toEqual({
        code: 'role.forbidden',
        detail: 'Only the host may invite',
        status: 403,
      });
      for (const agentIds of [[], Array.from({ length: 101 }, () => BOB), ['not an agent id']]) {
        const refused = await mcp.call('invite_add', { eventId: 'e1', agentIds });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toMatch(/Input validation error/);
      }
      expect(mcp.seen).toEqual([`POST /events/e1/invites {"agentIds":["${BOB}"]}`]);
    } finally {
      await mcp.close();
    }
  });

  it('event_create sends access when given, and rsvp answers access.not_invited as a tool error', async () => {
    const mcp = await connected((route) =>
      route === 'POST /events'
        ? { status: 201, body: CLOSED_AMA }
        : problem(403, 'access.not_invited', 'This event is invite only, and you are not invited'),
    );
    try {
      const times = { startsAt: '2027-03-04T18:00:00Z', endsAt: '2027-03-04T19:00:00Z' };
      const created = await mcp.call('event_create', { title: 'Closed AMA', ...times, access: 'invite' });
      expect(created.structuredContent).toMatchObject({ id: 'e1', access: 'invite' });
      await mcp.call('event_create', { title: 'Open AMA', ...times });
      expect((await mcp.call('event_create', { title: 'x', ...times, access: 'secret' })).isError).toBe(true);
      const rsvp = await mcp.call('rsvp', { eventId: 'e1' });
      expect(rsvp.isError).toBe(true);
      expect(JSON.parse(textOf(rsvp))).toMatchObject({ code: 'access.not_invited', status: 403 });
      expect(mcp.seen).toEqual([
        `POST /events {"title":"Closed AMA",${JSON.stringify(times).slice(1, -1)},"timezone":"UTC","capacity":100,"access":"invite"}`,
        `POST /events {"title":"Open AMA",${JSON.stringify(times).slice(1, -1)},"timezone":"UTC","capacity":100}`,
        'POST /events/e1/rsvp {}',
      ]);
    } finally {
      await mcp.close();
    }
  });
});
