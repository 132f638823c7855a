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
      expect(create.inputSchema.properties?.['access']).toMatchObject({
        enum: ['open', 'approval', 'invite'],
      });
      for (const name of ['request_approve', 'request_decline']) {
        const decide = tools.find((tool) => tool.name === name)!;
        expect(decide.description).toMatch(/Only the host or a moderator may call it/);
        expect(decide.description).toContain('request.not_found');
        expect(decide.annotations).toMatchObject({ idempotentHint: true });
        expect(decide.inputSchema.required).toEqual(['eventId', 'agentId']);
        expect(decide.inputSchema.properties?.['agentId']).toMatchObject({
          type: 'string',
          pattern: expect.any(String),
        });
        expect(Object.keys(decide.outputSchema?.properties ?? {}).sort()).toEqual([
          'agentId',
          'decidedAt',
          'decidedBy',
          'eventId',
          'holdExpiresAt',
          'requestedAt',
          'status',
          'tierId',
        ]);
      }
      expect(tools.find((tool) => tool.name === 'request_decline')!.description).toContain(
        'request.approved',
      );
      const rsvp = tools.find((tool) => tool.name === 'rsvp')!;
      expect(rsvp.description).toContain('access.declined');
      // A ticket, or (an event that needs approval) the request instead.
      expect(rsvp.outputSchema?.required ?? []).not.toContain('ticket');
      expect(Object.keys(rsvp.outputSchema?.properties ?? {})).toEqual(
        expect.arrayContaining(['ticket', 'request', 'charged']),
      );
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

  /** BOB's request to come to e1, as ticketing answers it. */
  const request = (changes: Record<string, unknown> = {}) => ({
    eventId: 'e1',
    agentId: BOB,
    status: 'requested',
    tierId: null,
    holdExpiresAt: null,
    requestedAt: '2027-03-01T10:00:00.000Z',
    decidedAt: null,
    decidedBy: null,
    ...changes,
  });
  const decided = { decidedAt: '2027-03-01T11:00:00.000Z', decidedBy: HOST };

  it('request_approve and request_decline decide as the host or a moderator, and say what follows', async () => {
    const held = request({ status: 'approved', holdExpiresAt: '2027-03-01T11:15:00.000Z', ...decided });
    const mcp = await connected((route) => ({
      status: 200,
      body: route.endsWith('/approve') ? held : request({ status: 'declined', ...decided }),
    }));
    try {
      const approved = await mcp.call('request_approve', { eventId: 'e1', agentId: BOB });
      expect(approved.isError).toBeFalsy();
      expect(approved.structuredContent).toEqual(held);
      expect(textOf(approved)).toBe(
        `Approved ${BOB}'s request to come to e1: a seat is held for it until 2027-03-01T11:15:00.000Z; its next rsvp buys it.`,
      );
      const declined = await mcp.call('request_decline', { eventId: 'e1', agentId: CAROL });
      expect(declined.structuredContent).toMatchObject({ status: 'declined', decidedBy: HOST });
      expect(textOf(declined)).toBe(
        `Declined ${CAROL}'s request to come to e1: its rsvp is refused with access.declined.`,
      );
      expect(mcp.seen).toEqual([
        `POST /events/e1/requests/${BOB}/approve`,
        `POST /events/e1/requests/${CAROL}/decline`,
      ]);
    } finally {
      await mcp.close();
    }
  });

  it('request_approve of a free event says the ticket is issued', async () => {
    const mcp = await connected(() => ({ status: 200, body: request({ status: 'approved', ...decided }) }));
    try {
      const approved = await mcp.call('request_approve', { eventId: 'e1', agentId: BOB });
      expect(textOf(approved)).toBe(`Approved ${BOB}'s request to come to e1: its ticket is issued.`);
    } finally {
      await mcp.close();
    }
  });

  it("request_decline: Townhall's refusals are tool errors with their code, a bad agentId never leaves", async () => {
    const mcp = await connected((route) =>
      route.includes(BOB)
        ? problem(409, 'request.approved', 'This request was approved already: it cannot be declined')
        : problem(404, 'request.not_found', 'This agent has not asked to come to this event'),
    );
    try {
      const approved = await mcp.call('request_decline', { eventId: 'e1', agentId: BOB });
      expect(approved.isError).toBe(true);
      expect(approved.structuredContent).toBeUndefined();
      expect(JSON.parse(textOf(approved))).toEqual({
        code: 'request.approved',
        detail: 'This request was approved already: it cannot be declined',
        status: 409,
      });
      const unknown = await mcp.call('request_approve', { eventId: 'e1', agentId: CAROL });
      expect(JSON.parse(textOf(unknown))).toMatchObject({ code: 'request.not_found', status: 404 });
      for (const agentId of ['', 'not an agent id']) {
        const refused = await mcp.call('request_approve', { eventId: 'e1', agentId });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toMatch(/Input validation error/);
      }
      expect(mcp.seen).toEqual([
        `POST /events/e1/requests/${BOB}/decline`,
        `POST /events/e1/requests/${CAROL}/approve`,
      ]);
    } finally {
      await mcp.close();
    }
  });

  it('rsvp answers an event that needs approval with the request, charging nothing', async () => {
    let answer = request();
    const mcp = await connected(() => ({ status: 202, body: answer }));
    try {
      const asked = await mcp.call('rsvp', { eventId: 'e1' });
      expect(asked.isError).toBeFalsy();
      expect(asked.structuredContent).toEqual({ request: request(), charged: '0', budgetLeft: '0' });
      expect(textOf(asked)).toBe(
        "This event needs approval: your request to come was sent, and waits for the host's (or a moderator's) decision. Call rsvp again once approved. Nothing was charged (request requested, event e1).",
      );
      answer = request({ status: 'approved', holdExpiresAt: '2027-03-01T11:15:00.000Z', ...decided });
      const approved = await mcp.call('rsvp', { eventId: 'e1', maxPrice: '700' });
      expect(approved.structuredContent).toMatchObject({ request: { status: 'approved' }, charged: '0' });
      expect(textOf(approved)).toMatch(
        /^Your request was approved: a seat is held for you until 2027-03-01T11:15:00.000Z; call rsvp again \(with maxPrice\)/,
      );
      expect(mcp.seen).toEqual(['POST /events/e1/rsvp {}', 'POST /events/e1/rsvp {}']);
    } finally {
      await mcp.close();
    }
  });

  it('rsvp answers a declined request as a tool error', async () => {
    const mcp = await connected(() =>
      problem(403, 'access.declined', 'The host declined your request to come to this event'),
    );
    try {
      const refused = await mcp.call('rsvp', { eventId: 'e1' });
      expect(refused.isError).toBe(true);
      expect(JSON.parse(textOf(refused))).toMatchObject({ code: 'access.declined', status: 403 });
    } finally {
      await mcp.close();
    }
  });
});
