import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AgentClient } from '@townhall/sdk';
import { aCodeView, anEventView } from '@townhall/testing';
import { Budget } from '../budget.js';
import type { PayingSession } from '../paid-rsvp.js';
import { PaymentFollowUp } from '../payment-follow-up.js';
import { fullReport } from '../../../test/report-fixtures.js';
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
      const code = tools.find((tool) => tool.name === 'code_create')!;
      expect(code.description).toMatch(/Only the host may call it/);
      for (const refusal of ['role.forbidden', 'code.taken', 'validation.failed'])
        expect(code.description).toContain(refusal);
      // Not idempotent (the same code again is code.taken), and it destroys nothing.
      expect(code.annotations).toMatchObject({ destructiveHint: false, idempotentHint: false });
      expect(code.inputSchema.required).toEqual(['eventId', 'code']);
      expect(code.inputSchema.properties?.['code']).toMatchObject({
        type: 'string',
        pattern: expect.any(String),
      });
      expect(code.inputSchema.properties?.['percentOff']).toMatchObject({ minimum: 1, maximum: 100 });
      expect(code.inputSchema.properties?.['unlocksTierIds']).toMatchObject({ type: 'array', maxItems: 10 });
      expect(Object.keys(code.outputSchema?.properties ?? {}).sort()).toEqual([
        'amountOff',
        'code',
        'createdAt',
        'eventId',
        'expiresAt',
        'free',
        'maxUses',
        'percentOff',
        'tierIds',
        'unlocksTierIds',
        'uses',
      ]);
      const rsvp = tools.find((tool) => tool.name === 'rsvp')!;
      expect(rsvp.description).toContain('access.declined');
      for (const refusal of ['code.not_found', 'code.exhausted', 'code.expired', 'code.not_for_tier'])
        expect(rsvp.description).toContain(refusal);
      expect(rsvp.inputSchema.properties?.['code']).toMatchObject({
        type: 'string',
        pattern: expect.any(String),
      });
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

  /** The code SPRING25 of e1, as ticketing answers it. */
  const SPRING25 = aCodeView({ tierIds: null, unlocksTierIds: ['crew'] });

  it('code_create creates a code as the host and says what it gives', async () => {
    const mcp = await connected(() => ({ status: 201, body: SPRING25 }));
    try {
      const created = await mcp.call('code_create', {
        eventId: 'e1',
        code: 'SPRING25',
        percentOff: 25,
        maxUses: 5,
        unlocksTierIds: ['crew', 'crew'],
      });
      expect(created.isError).toBeFalsy();
      expect(created.structuredContent).toEqual(SPRING25);
      expect(textOf(created)).toBe(
        'Created code SPRING25 for e1: 25% off, tiers all it may buy, unlocks crew, 0/5 used, never expires.',
      );
      await mcp.call('code_create', {
        eventId: 'e1',
        code: 'friends',
        free: true,
        tierIds: ['general'],
        expiresAt: '2027-03-04T18:00:00Z',
      });
      expect(mcp.seen).toEqual([
        'POST /events/e1/codes {"code":"SPRING25","percentOff":25,"maxUses":5,"unlocksTierIds":["crew"]}',
        'POST /events/e1/codes {"code":"friends","free":true,"tierIds":["general"],"expiresAt":"2027-03-04T18:00:00Z"}',
      ]);
    } finally {
      await mcp.close();
    }
  });

  it("code_create: Townhall's refusals are tool errors with their code, a bad code never leaves", async () => {
    const mcp = await connected((_route, body) =>
      (body as { code?: string }).code === 'SPRING25'
        ? problem(409, 'code.taken', 'This event has this code already')
        : problem(403, 'role.forbidden', 'Only the host may create codes'),
    );
    try {
      const taken = await mcp.call('code_create', { eventId: 'e1', code: 'SPRING25', percentOff: 25 });
      expect(taken.isError).toBe(true);
      expect(taken.structuredContent).toBeUndefined();
      expect(JSON.parse(textOf(taken))).toEqual({
        code: 'code.taken',
        detail: 'This event has this code already',
        status: 409,
      });
      const forbidden = await mcp.call('code_create', { eventId: 'e1', code: 'other', free: true });
      expect(JSON.parse(textOf(forbidden))).toMatchObject({ code: 'role.forbidden', status: 403 });
      for (const [args, why] of [
        [{ code: 'x', free: true }, /Input validation error/],
        [{ code: 'HALF', percentOff: 101 }, /Input validation error/],
        [{ code: 'HALF', free: false }, /Input validation error/],
        [{ code: 'HALF', percentOff: 50, free: true }, /give one of percentOff, amountOff and free/],
        [{ code: 'HALF', maxUses: 5 }, /a code gives a discount .* or unlocks hidden tiers/],
      ] as const) {
        const refused = await mcp.call('code_create', { eventId: 'e1', ...args });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toMatch(why);
      }
      expect(
        JSON.parse(textOf(await mcp.call('code_create', { eventId: 'e1', code: 'HALF' }))),
      ).toMatchObject({ code: 'validation.failed' });
      expect(mcp.seen).toHaveLength(2);
    } finally {
      await mcp.close();
    }
  });

  it('rsvp sends the code: a ticket it makes free at once, charging nothing; its refusals as tool errors', async () => {
    const ticket = {
      id: 't1',
      eventId: 'e1',
      tierId: 'crew',
      holderId: BOB,
      status: 'active',
      price: '0',
      asset: 'USDC',
      network: null,
      transaction: null,
      code: 'FRIENDS',
      createdAt: '2027-03-01T10:00:00.000Z',
      cancelledAt: null,
    };
    const mcp = await connected((_route, body) =>
      (body as { code?: string }).code === 'friends'
        ? { status: 201, body: ticket }
        : problem(409, 'code.exhausted', 'This code has been used as many times as it may be'),
    );
    try {
      const free = await mcp.call('rsvp', { eventId: 'e1', tierId: 'crew', code: 'friends' });
      expect(free.isError).toBeFalsy();
      expect(free.structuredContent).toEqual({ ticket, charged: '0', budgetLeft: '0' });
      expect(textOf(free)).toBe('Your ticket (free with code FRIENDS). Ticket t1 (active); budget left 0.');
      const exhausted = await mcp.call('rsvp', { eventId: 'e1', code: 'SPRING25', maxPrice: '750' });
      expect(JSON.parse(textOf(exhausted))).toMatchObject({ code: 'code.exhausted', status: 409 });
      expect((await mcp.call('rsvp', { eventId: 'e1', code: 'no spaces' })).isError).toBe(true);
      expect(mcp.seen).toEqual([
        'POST /events/e1/rsvp {"tierId":"crew","code":"friends"}',
        'POST /events/e1/rsvp {"code":"SPRING25"}',
      ]);
    } finally {
      await mcp.close();
    }
  });

  it('rsvp with a code meets maxPrice with the discounted price the 402 offers, and names the code', async () => {
    const mcp = await connected(() => ({
      status: 402,
      body: {
        type: 'about:blank',
        title: 'Payment required',
        status: 402,
        code: 'payment.required',
        detail: 'This event sells paid tickets',
        requestId: 'r1',
        accepts: [
          {
            scheme: 'exact',
            network: 'ledger:development',
            maxAmountRequired: '750',
            asset: 'USDC',
            payTo: HOST,
            resource: 'http://townhall.test/events/e1/rsvp?tier=general',
            description: 'Ticket (General admission) for event e1',
            mimeType: 'application/json',
            maxTimeoutSeconds: 300,
            extra: { eventId: 'e1', tierId: 'general' },
          },
        ],
      },
    }));
    try {
      const above = await mcp.call('rsvp', { eventId: 'e1', code: 'SPRING25', maxPrice: '700' });
      expect(above.isError).toBe(true);
      expect(JSON.parse(textOf(above))).toEqual({
        code: 'payment.budget',
        detail:
          'A ticket costs 750 atomic units of USDC with code SPRING25; that is more than maxPrice 700. Nothing was charged.',
        price: '750',
        asset: 'USDC',
        network: 'ledger:development',
        tierId: 'general',
        maxPrice: '700',
        budgetLeft: '0',
      });
      expect(mcp.seen).toEqual(['POST /events/e1/rsvp {"code":"SPRING25"}']);
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

  it('event_report reads the report: the whole report as structured content, a summary as text', async () => {
    const report = fullReport();
    const mcp = await connected(() => ({ status: 200, body: report }));
    try {
      const { tools } = await mcp.client.listTools();
      const tool = tools.find((each) => each.name === 'event_report')!;
      expect(tool.annotations).toMatchObject({ readOnlyHint: true });
      expect(tool.description).toMatch(/Only the host or a moderator may call it/);
      for (const code of ['role.forbidden', 'event.not_found']) expect(tool.description).toContain(code);
      expect(tool.inputSchema.required).toEqual(['eventId']);
      expect(Object.keys(tool.outputSchema?.properties ?? {})).toEqual(
        expect.arrayContaining(['eventId', 'status', 'registrations', 'revenue', 'attendance', 'polls']),
      );
      const result = await mcp.call('event_report', { eventId: 'e1' });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual(report);
      expect(textOf(result)).toMatch(
        /^Report of e1 \(past\): 7 registrations, revenue 0\.0065 USDC \(ledger\)/,
      );
      expect(mcp.seen).toEqual(['GET /events/e1/report']);
    } finally {
      await mcp.close();
    }
  });

  it('event_report answers a refusal as a tool error with its code', async () => {
    const mcp = await connected(() => problem(403, 'role.forbidden', 'Only the host or a moderator'));
    try {
      const refused = await mcp.call('event_report', { eventId: 'e1' });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toBeUndefined();
      expect(JSON.parse(textOf(refused))).toMatchObject({ code: 'role.forbidden', status: 403 });
      expect((await mcp.call('event_report', {})).isError).toBe(true);
    } finally {
      await mcp.close();
    }
  });
});
