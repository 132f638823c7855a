import { spawn, spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  ResourceUpdatedNotificationSchema,
  type CallToolResult,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { EventView, TicketView } from '@townhall/contracts';
import { AgentClient } from '@townhall/sdk';
import { saveKeyFile } from '@townhall/sdk/key-file';
import {
  compileCacheEnv,
  freePort,
  isPaidRequest,
  LostAnswerProxy,
  REPO_ROOT,
  StandaloneProcess,
  Topology,
  type ProxiedRequest,
  waitFor,
} from '@townhall/testing';

const CLI = 'apps/cli/dist/main.js';
const INSPECTOR = 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js';
const STANDALONE_AUDIENCE = 'http://townhall.mcp.test';
const HOUR = 3_600_000;

/** The tools the issue names, exactly. */
const TOOLS = [
  'whoami',
  'directory_get',
  'directory_set',
  'events_list',
  'event_get',
  'event_create',
  'event_start',
  'event_end',
  'event_cancel',
  'invite_add',
  'code_create',
  'request_approve',
  'request_decline',
  'rsvp',
  'tickets_mine',
  'stage_read',
  'stage_post',
  'questions_list',
  'question_ask',
  'question_upvote',
  'question_promote',
  'polls_list',
  'poll_open',
  'poll_vote',
  'recording_get',
  'event_report',
].sort();

/** A running Townhall, in one of its two modes. */
interface Deployment {
  baseUrl: string;
  /** `--audience` for the CLI, when the server's PUBLIC_BASE_URL is not its URL's origin. */
  audience: string | undefined;
  stop(): Promise<void>;
}

/** The paid events here cost up to 2.50 USDC: each buyer takes 10 USDC in one faucet call. */
const FAUCET_OF_10_USDC = { LEDGER_FAUCET_MAX_AMOUNT: '10000000' };

async function distributed(): Promise<Deployment> {
  const topology = await Topology.start({ env: { LEDGER_FAUCET: 'true', ...FAUCET_OF_10_USDC } });
  return { baseUrl: topology.baseUrl, audience: undefined, stop: () => topology.stop() };
}

async function standalone(): Promise<Deployment> {
  const server = await StandaloneProcess.start({
    PUBLIC_BASE_URL: STANDALONE_AUDIENCE,
    ...FAUCET_OF_10_USDC,
  });
  return { baseUrl: server.baseUrl, audience: STANDALONE_AUDIENCE, stop: () => server.stop() };
}

/** What a tool result says, for assertions: its structured content, or its refusal's JSON. */
function structured<T>(result: CallToolResult): T {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  expect(result.content[0]).toMatchObject({ type: 'text', text: expect.any(String) });
  return result.structuredContent as T;
}
function refused(result: CallToolResult): { code: string; detail: string } & Record<string, unknown> {
  expect(result.isError).toBe(true);
  const [first] = result.content;
  if (first?.type !== 'text') throw new Error('a refusal is text');
  return JSON.parse(first.text) as { code: string; detail: string };
}

/** The status of an initialize POST with these headers (node:http: fetch will not send a Host of its own). */
function statusOf(url: string, headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
  });
  return new Promise((resolve, reject) => {
    const sent = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    sent.once('error', reject);
    sent.end(body);
  });
}

/** An agent's ledger balance of USDC, in atomic units. */
async function usdc(api: AgentClient): Promise<bigint> {
  const { balances } = await api.ledger.balance();
  return BigInt(balances.find((balance) => balance.asset === 'USDC')?.amount ?? '0');
}

const inHours = (hours: number) => new Date(Date.now() + hours * HOUR).toISOString();

describe.each([
  ['distributed', distributed],
  ['standalone', standalone],
] as const)('townhall mcp over stdio, driven by the official MCP client (%s)', (mode, deploy) => {
  let deployment: Deployment;
  let dir: string;
  const clients: Client[] = [];

  /** An agent: its key file (for `townhall mcp --key`) and an SDK client of the same key (to check). */
  async function anAgent(name: string): Promise<{ keyFile: string; api: AgentClient }> {
    const api = new AgentClient({
      baseUrl: deployment.baseUrl,
      ...(deployment.audience ? { audience: deployment.audience } : {}),
    });
    const keyFile = join(dir, `${name}.json`);
    await saveKeyFile(keyFile, api.key);
    return { keyFile, api };
  }

  /** `--url` (Townhall, or a proxy in front of it) and the audience Townhall checks signatures for. */
  const cliArgs = (keyFile: string, url: string, ...rest: string[]) => [
    CLI,
    '--url',
    url,
    '--audience',
    deployment.audience ?? new URL(deployment.baseUrl).origin,
    '--key',
    keyFile,
    'mcp',
    ...rest,
  ];

  /** The real `townhall mcp` process, connected over stdio as an LLM runtime starts it. */
  async function session(
    keyFile: string,
    options: {
      budget?: string;
      asset?: string;
      /** Townhall's URL as this process sees it (default: the deployment's). */
      url?: string;
      approve?: (request: { message: string }) => ElicitResult | Promise<ElicitResult>;
    } = {},
  ): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: cliArgs(
        keyFile,
        options.url ?? deployment.baseUrl,
        ...(options.budget ? ['--budget', options.budget] : []),
        ...(options.asset ? ['--asset', options.asset] : []),
      ),
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...compileCacheEnv(), HOME: dir },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const client = new Client(
      { name: 'townhall-e2e', version: '1.0.0' },
      { capabilities: options.approve ? { elicitation: { form: {} } } : {} },
    );
    if (options.approve) {
      const approve = options.approve;
      client.setRequestHandler(ElicitRequestSchema, (request) =>
        approve({ message: request.params.message }),
      );
    }
    await client.connect(transport);
    clients.push(client);
    return { client, transport, stderr: () => stderr };
  }

  const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

  let host: Awaited<ReturnType<typeof anAgent>>;
  let alice: Awaited<ReturnType<typeof anAgent>>;
  let bob: Awaited<ReturnType<typeof anAgent>>;
  let hostMcp: Client;
  let aliceMcp: Client;
  let bobMcp: Client;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), `townhall-mcp-${mode}-`));
    deployment = await deploy();
    [host, alice, bob] = await Promise.all([anAgent('host'), anAgent('alice'), anAgent('bob')]);
    [hostMcp, aliceMcp, bobMcp] = (
      await Promise.all([session(host.keyFile), session(alice.keyFile), session(bob.keyFile)])
    ).map((opened) => opened.client) as [Client, Client, Client];
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await deployment?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lists every tool of the issue, each with an input and an output schema and a description for a model', async () => {
    const { tools } = await aliceMcp.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description?.length).toBeGreaterThan(40);
    }
    const rsvp = tools.find((tool) => tool.name === 'rsvp')!;
    expect(Object.keys(rsvp.inputSchema.properties ?? {}).sort()).toEqual([
      'code',
      'eventId',
      'maxPrice',
      'tierId',
    ]);
    expect(rsvp.inputSchema.required).toEqual(['eventId']);
    expect(rsvp.description).toMatch(/COST|cost/);

    const me = structured<{ agentId: string; handle?: string }>(await call(aliceMcp, 'whoami'));
    expect(me).toEqual({ agentId: alice.api.agentId });
  });

  let free: EventView;
  let paid: EventView;

  it('a host session creates, starts and ends an event; a directory card is set and read', async () => {
    const handle = `mcp_${mode.slice(0, 5)}_${Date.now().toString(36)}`;
    expect(structured(await call(hostMcp, 'directory_set', { handle, name: 'MCP host' }))).toMatchObject({
      agentId: host.api.agentId,
      handle,
    });
    expect(structured(await call(aliceMcp, 'directory_get', { agentId: host.api.agentId }))).toMatchObject({
      handle,
      displayName: 'MCP host',
    });
    expect(structured(await call(hostMcp, 'whoami'))).toEqual({ agentId: host.api.agentId, handle });

    free = structured<EventView>(
      await call(hostMcp, 'event_create', {
        title: `MCP free AMA ${mode}`,
        startsAt: inHours(1),
        endsAt: inHours(2),
        description: 'Asked and answered by models',
      }),
    );
    paid = structured<EventView>(
      await call(hostMcp, 'event_create', {
        title: `MCP paid workshop ${mode}`,
        startsAt: inHours(3),
        endsAt: inHours(4),
        capacity: 5,
        price: '2500000',
      }),
    );
    expect(free).toMatchObject({
      hostId: host.api.agentId,
      status: 'scheduled',
      ticketing: { mode: 'free' },
    });
    expect(paid).toMatchObject({ capacity: 5, ticketing: { mode: 'single', price: '2500000' } });
    // The server's own view agrees.
    expect(await host.api.events.get(paid.id)).toMatchObject({ id: paid.id, hostId: host.api.agentId });

    const listed = structured<{ events: EventView[] }>(
      await call(aliceMcp, 'events_list', { status: 'scheduled', q: `workshop ${mode}` }),
    );
    expect(listed.events.map((event) => event.id)).toEqual([paid.id]);
    expect(structured<EventView>(await call(aliceMcp, 'event_get', { eventId: free.id })).title).toBe(
      free.title,
    );

    // An invite-only event: the host invites an agent, once however often it asks.
    const invitesOnly = structured<EventView>(
      await call(hostMcp, 'event_create', {
        title: `MCP invite-only ${mode}`,
        startsAt: inHours(5),
        endsAt: inHours(6),
        access: 'invite',
      }),
    );
    expect(invitesOnly.access).toBe('invite');
    const invite = { eventId: invitesOnly.id, agentIds: [alice.api.agentId] };
    expect(structured(await call(hostMcp, 'invite_add', invite))).toEqual({
      invites: [
        {
          eventId: invitesOnly.id,
          agentId: alice.api.agentId,
          invitedBy: host.api.agentId,
          invitedAt: expect.any(String),
        },
      ],
      added: 1,
    });
    expect(structured(await call(hostMcp, 'invite_add', invite))).toMatchObject({ added: 0 });

    // A throwaway event goes live and ends; the one the tests use next starts.
    const brief = structured<EventView>(
      await call(hostMcp, 'event_create', { title: 'Over soon', startsAt: inHours(1), endsAt: inHours(2) }),
    );
    expect(structured<EventView>(await call(hostMcp, 'event_start', { eventId: brief.id })).status).toBe(
      'live',
    );
    expect(structured<EventView>(await call(hostMcp, 'event_end', { eventId: brief.id })).status).toBe(
      'past',
    );
    expect((await host.api.events.get(brief.id)).status).toBe('past');
    // The recording is made by engagement from the event's end (a domain event): a moment later.
    const recording = await waitFor('the recording', async () => {
      const result = await call(hostMcp, 'recording_get', { eventId: brief.id });
      return result.isError ? undefined : result;
    });
    expect(structured<{ eventId: string }>(recording).eventId).toBe(brief.id);
  });

  it('refusals are tool errors with the problem code; the process answers on', async () => {
    expect(refused(await call(aliceMcp, 'event_start', { eventId: free.id }))).toMatchObject({
      code: 'role.forbidden',
      status: 403,
    });
    expect(
      refused(await call(aliceMcp, 'invite_add', { eventId: free.id, agentIds: [alice.api.agentId] })),
    ).toMatchObject({ code: 'role.forbidden', status: 403 });
    expect(refused(await call(aliceMcp, 'event_get', { eventId: 'no-such-event' }))).toMatchObject({
      code: expect.stringMatching(/^(event\.not_found|validation\.failed)$/),
    });
    // A wrong argument type: the SDK's input validation, before any request.
    const wrongType = await call(aliceMcp, 'event_get', { eventId: 42 });
    expect(wrongType.isError).toBe(true);
    expect(JSON.stringify(wrongType.content)).toMatch(/validation/i);
    const notAList = await call(aliceMcp, 'poll_vote', { eventId: free.id, pollId: 'p', optionIds: 'a' });
    expect(notAList.isError).toBe(true);
    expect(JSON.stringify(notAList.content)).toMatch(/validation/i);
    const unknownTool = await call(aliceMcp, 'no_such_tool');
    expect(unknownTool.isError).toBe(true);
    expect(JSON.stringify(unknownTool.content)).toContain('Tool no_such_tool not found');
    expect(structured(await call(aliceMcp, 'whoami'))).toEqual({ agentId: alice.api.agentId });
  });

  it('hostile arguments are refused with a code or a validation error, nothing is written, the process answers on', async () => {
    let deep: unknown = 'x';
    for (let level = 0; level < 2_000; level++) deep = [deep];
    const hostile: Array<[string, Record<string, unknown>]> = [
      ['event_create', { title: 'nul \u0000 inside', startsAt: inHours(1), endsAt: inHours(2) }],
      ['event_create', { title: 'lone \ud800 surrogate', startsAt: inHours(1), endsAt: inHours(2) }],
      [
        'event_create',
        { title: 'in the past', startsAt: '2001-01-01T00:00:00Z', endsAt: '2001-01-01T01:00:00Z' },
      ],
      ['event_create', { title: 'year 275760', startsAt: '+275760-09-13T00:00:00Z', endsAt: inHours(2) }],
      ['event_create', { title: 'huge capacity', startsAt: inHours(1), endsAt: inHours(2), capacity: 1e300 }],
      ['event_create', { title: 'negative price', startsAt: inHours(1), endsAt: inHours(2), price: '-5' }],
      ['event_create', { title: 'x'.repeat(1_000_000), startsAt: inHours(1), endsAt: inHours(2) }],
      ['question_ask', { eventId: free.id, body: 'nul \u0000 question' }],
      ['question_ask', { eventId: free.id, body: '\udfff' }],
      ['stage_read', { eventId: free.id, after: -1 }],
      ['stage_read', { eventId: free.id, after: 1e20 }],
      ['events_list', { cursor: 'dGFtcGVyZWQ' }],
      ['events_list', { cursor: 'x'.repeat(5_000) }],
      ['events_list', { status: 'ended' }],
      ['event_get', { eventId: '../../directory/me' }],
      ['event_get', { eventId: 'nul\u0000id' }],
      ['poll_vote', { eventId: free.id, pollId: 'p', optionIds: deep }],
      ['rsvp', { eventId: free.id, maxPrice: '1.5' }],
      ['rsvp', { eventId: free.id, extra: true }],
      ['directory_set', { handle: 'x', bio: null }],
    ];
    const results: CallToolResult[] = [];
    for (const [name, args] of hostile) results.push(await call(aliceMcp, name, args));
    results.forEach((result, index) => {
      const [first] = result.content;
      const text = first?.type === 'text' ? first.text : '';
      // A refusal with a stable code, or the SDK's input validation: never a crash or an internal error.
      expect({ tool: hostile[index]![0], isError: result.isError }).toEqual({
        tool: hostile[index]![0],
        isError: true,
      });
      expect(text).toMatch(/"code":"[a-z_]+\.[a-z_]+"|Input validation error/);
      expect(text).not.toMatch(/internal|ECONNRESET|TypeError/i);
    });
    const mine = (await alice.api.events.list({ hostId: alice.api.agentId })).items;
    expect(mine).toEqual([]);
    expect(structured(await call(aliceMcp, 'whoami'))).toEqual({ agentId: alice.api.agentId });
  });

  it('an attendee RSVPs free; again, the same ticket and nothing charged', async () => {
    const first = structured<{ ticket: TicketView; charged: string }>(
      await call(aliceMcp, 'rsvp', { eventId: free.id }),
    );
    expect(first).toMatchObject({ ticket: { eventId: free.id, status: 'active' }, charged: '0' });
    const again = structured<{ ticket: TicketView; charged: string }>(
      await call(aliceMcp, 'rsvp', { eventId: free.id }),
    );
    expect(again).toMatchObject({ ticket: { id: first.ticket.id }, charged: '0' });
    const mine = structured<{ tickets: TicketView[] }>(await call(aliceMcp, 'tickets_mine'));
    expect(mine.tickets.map((ticket) => ticket.id)).toContain(first.ticket.id);
  });

  it('a paid RSVP: refused at budget 0 and above maxPrice, paid within the budget, charged exactly once', async () => {
    await alice.api.ledger.faucet('10000000');
    const before = await usdc(alice.api);

    const atZero = refused(await call(aliceMcp, 'rsvp', { eventId: paid.id, maxPrice: '2500000' }));
    expect(atZero).toMatchObject({ code: 'payment.budget', price: '2500000', budgetLeft: '0' });
    expect(atZero.detail).toContain('2500000');
    expect(atZero.detail).toContain('--budget');

    const spender = await session(alice.keyFile, { budget: '3000000' });
    const aboveMax = refused(await call(spender.client, 'rsvp', { eventId: paid.id, maxPrice: '2000000' }));
    expect(aboveMax).toMatchObject({ code: 'payment.budget', price: '2500000', maxPrice: '2000000' });
    expect(await usdc(alice.api)).toBe(before);
    await expect(alice.api.tickets.held(paid.id)).rejects.toMatchObject({ code: 'ticket.not_found' });

    const bought = structured<{
      ticket: TicketView;
      charged: string;
      budgetLeft: string;
      transaction: string;
    }>(await call(spender.client, 'rsvp', { eventId: paid.id, maxPrice: '2500000' }));
    expect(bought).toMatchObject({
      ticket: { eventId: paid.id, status: 'active' },
      charged: '2500000',
      budgetLeft: '500000',
      transaction: expect.any(String),
    });
    const again = structured<{ ticket: TicketView; charged: string; budgetLeft: string }>(
      await call(spender.client, 'rsvp', { eventId: paid.id }),
    );
    expect(again).toMatchObject({ ticket: { id: bought.ticket.id }, charged: '0', budgetLeft: '500000' });

    // The signed ledger API: one debit of the price, the balance down by exactly that.
    expect(await usdc(alice.api)).toBe(before - 2_500_000n);
    const entries = (await alice.api.ledger.entries({ limit: 100 })).items;
    const paidOut = entries.filter((entry) => entry.eventId === paid.id && entry.amount.startsWith('-'));
    expect(paidOut.map((entry) => entry.amount)).toEqual(['-2500000']);
  });

  it('two paid RSVPs at once within a budget for one: exactly one is paid', async () => {
    const [first, second] = await Promise.all(
      ['Race A', 'Race B'].map(async (title) =>
        structured<EventView>(
          await call(hostMcp, 'event_create', {
            title,
            startsAt: inHours(5),
            endsAt: inHours(6),
            price: '1500000',
          }),
        ),
      ),
    );
    const racer = await anAgent('racer');
    await racer.api.ledger.faucet('10000000');
    const before = await usdc(racer.api);
    const racing = await session(racer.keyFile, { budget: '2000000' });
    const results = await Promise.all(
      [first!, second!].map((event) =>
        call(racing.client, 'rsvp', { eventId: event.id, maxPrice: '1500000' }),
      ),
    );
    const paidOnes = results.filter((result) => !result.isError);
    expect(paidOnes).toHaveLength(1);
    expect(refused(results.find((result) => result.isError)!)).toMatchObject({
      code: 'payment.budget',
      budgetLeft: expect.stringMatching(/^(500000|0)$/),
    });
    expect(structured<{ budgetLeft: string }>(paidOnes[0]!).budgetLeft).toBe('500000');
    expect(await usdc(racer.api)).toBe(before - 1_500_000n);
  });

  it('beyond the budget, a client with elicitation asks the person: declined charges nothing, accepted pays once', async () => {
    await bob.api.ledger.faucet('10000000');
    const before = await usdc(bob.api);
    const asked: string[] = [];
    const declining = await session(bob.keyFile, {
      approve: ({ message }) => (asked.push(message), { action: 'decline' }),
    });
    expect(
      refused(await call(declining.client, 'rsvp', { eventId: paid.id, maxPrice: '2500000' })),
    ).toMatchObject({ code: 'payment.budget' });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('2500000');
    expect(await usdc(bob.api)).toBe(before);

    const accepting = await session(bob.keyFile, {
      approve: () => ({ action: 'accept', content: { approve: true } }),
    });
    const bought = structured<{ charged: string; budgetLeft: string }>(
      await call(accepting.client, 'rsvp', { eventId: paid.id, maxPrice: '2500000' }),
    );
    expect(bought).toMatchObject({ charged: '2500000', budgetLeft: '0', budgetAsset: 'USDC' });
    expect(await usdc(bob.api)).toBe(before - 2_500_000n);
  });

  /** A paid event hosted by the host's session (USDC, unless `asset`). */
  async function paidEvent(
    title: string,
    price: string,
    options: { capacity?: number; asset?: string } = {},
  ) {
    if (options.asset === undefined)
      return structured<EventView>(
        await call(hostMcp, 'event_create', {
          title,
          startsAt: inHours(5),
          endsAt: inHours(6),
          price,
          ...(options.capacity ? { capacity: options.capacity } : {}),
        }),
      );
    return host.api.events.create({
      title,
      startsAt: inHours(5),
      endsAt: inHours(6),
      timezone: 'UTC',
      capacity: options.capacity ?? 10,
      ticketing: { mode: 'single', price, asset: options.asset },
    });
  }

  /** An agent with 10 USDC on the ledger, and its balance. */
  async function aBuyer(name: string): Promise<Awaited<ReturnType<typeof anAgent>> & { before: bigint }> {
    const buyer = await anAgent(name);
    await buyer.api.ledger.faucet('10000000');
    return { ...buyer, before: await usdc(buyer.api) };
  }

  it('a paid rsvp without maxPrice is refused with payment.budget naming the price; nothing is signed or charged', async () => {
    const event = await paidEvent('No price named', '2500000');
    const buyer = await aBuyer('unnamed');
    const within = await session(buyer.keyFile, { budget: '5000000' });
    const refusal = refused(await call(within.client, 'rsvp', { eventId: event.id }));
    expect(refusal).toMatchObject({
      code: 'payment.budget',
      price: '2500000',
      asset: 'USDC',
      budgetLeft: '5000000',
    });
    expect(refusal.detail).toContain('maxPrice 2500000');
    expect(await usdc(buyer.api)).toBe(buyer.before);
    await expect(buyer.api.tickets.held(event.id)).rejects.toMatchObject({ code: 'ticket.not_found' });
    // Named, it pays.
    expect(
      structured(await call(within.client, 'rsvp', { eventId: event.id, maxPrice: '2500000' })),
    ).toMatchObject({ charged: '2500000', budgetLeft: '2500000', budgetAsset: 'USDC' });
  });

  it('an approved payment whose purchase fails (sold out meanwhile) leaves no grant: the next paid rsvp asks again', async () => {
    const lastSeat = await paidEvent('The last seat', '2000000', { capacity: 1 });
    const next = await paidEvent('The next one', '2000000');
    const [buyer, rival] = await Promise.all([aBuyer('approved'), aBuyer('rival')]);
    const asked: string[] = [];
    const approving = await session(buyer.keyFile, {
      approve: async ({ message }) => {
        asked.push(message);
        if (asked.length > 1) return { action: 'decline' };
        // While the person approves, someone else buys the last seat.
        await rival.api.tickets.rsvp(lastSeat.id, { maxPrice: '2000000' });
        return { action: 'accept', content: { approve: true } };
      },
    });
    expect(
      refused(await call(approving.client, 'rsvp', { eventId: lastSeat.id, maxPrice: '2000000' })),
    ).toMatchObject({ code: 'capacity.sold_out' });
    expect(asked).toHaveLength(1);
    expect(await usdc(buyer.api)).toBe(buyer.before);

    // The approval covered that purchase only: the same price elsewhere is put to the person again.
    expect(
      refused(await call(approving.client, 'rsvp', { eventId: next.id, maxPrice: '2000000' })),
    ).toMatchObject({ code: 'payment.budget', budgetLeft: '0' });
    expect(asked).toHaveLength(2);
    expect(asked[1]).toContain('2000000');
    expect(await usdc(buyer.api)).toBe(buyer.before);
    await expect(buyer.api.tickets.held(next.id)).rejects.toMatchObject({ code: 'ticket.not_found' });
  });

  it('the answer to a paid request is lost after Townhall took the payment: the budget stays spent, tickets_mine shows the ticket', async () => {
    const dropped = await paidEvent('Answer lost', '2500000');
    const next = await paidEvent('After the loss', '1000000');
    const small = await paidEvent('Small and lost', '400000');
    const buyer = await aBuyer('lost');
    const proxy = await LostAnswerProxy.start(deployment.baseUrl);
    const ticketLookup = (request: ProxiedRequest) =>
      request.method === 'GET' && /^\/events\/[^/]+\/rsvp$/.test(request.url);
    try {
      const buying = await session(buyer.keyFile, { budget: '3000000', url: proxy.url });
      // The paid request's answer is lost, and so is every lookup of the ticket for now.
      proxy.loses = (request) => isPaidRequest(request) || ticketLookup(request);
      const lost = refused(await call(buying.client, 'rsvp', { eventId: dropped.id, maxPrice: '2500000' }));
      expect(lost).toMatchObject({
        code: 'payment.unconfirmed',
        budgetLeft: '500000',
        budgetUnconfirmed: '2500000',
      });
      expect(proxy.lost).toEqual([
        `POST /events/${dropped.id}/rsvp -> 201`,
        `GET /events/${dropped.id}/rsvp -> 200`,
      ]);
      // Townhall took it: the ticket exists, the balance is down by the price.
      const mine = structured<{ tickets: TicketView[] }>(await call(buying.client, 'tickets_mine'));
      expect(mine.tickets.map((ticket) => ticket.eventId)).toContain(dropped.id);
      expect(await usdc(buyer.api)).toBe(buyer.before - 2_500_000n);

      // Not confirmed yet: still reserved, so a price the budget could otherwise pay is refused.
      expect(
        refused(await call(buying.client, 'rsvp', { eventId: next.id, maxPrice: '1000000' })),
      ).toMatchObject({ code: 'payment.budget', budgetLeft: '500000', budgetUnconfirmed: '2500000' });
      // Lookups answer again: the next paid rsvp confirms it spent, and the budget stays down.
      proxy.loses = isPaidRequest;
      const confirmed = refused(await call(buying.client, 'rsvp', { eventId: next.id, maxPrice: '1000000' }));
      expect(confirmed).toMatchObject({ code: 'payment.budget', budgetLeft: '500000' });
      expect(confirmed['budgetUnconfirmed']).toBeUndefined();
      expect(buying.stderr()).toContain(`the payment of 2500000 for event ${dropped.id} was taken`);

      // Lost again, but the lookup answers at once: the ticket is the answer, and it is spent.
      const found = structured<{ ticket: TicketView; charged: string; budgetLeft: string }>(
        await call(buying.client, 'rsvp', { eventId: small.id, maxPrice: '400000' }),
      );
      expect(found).toMatchObject({ ticket: { eventId: small.id }, charged: '400000', budgetLeft: '100000' });
      expect(proxy.lost.slice(2)).toEqual([
        `GET /events/${dropped.id}/rsvp -> 200`,
        `POST /events/${small.id}/rsvp -> 201`,
      ]);
      expect(await usdc(buyer.api)).toBe(buyer.before - 2_900_000n);
      expect(
        structured(await call(buying.client, 'rsvp', { eventId: dropped.id, maxPrice: '2500000' })),
      ).toMatchObject({ charged: '0', budgetLeft: '100000' });
    } finally {
      await proxy.stop();
    }
  });

  it("an offer in another asset than the budget's is refused before anything is signed", async () => {
    const inUsdc = await paidEvent('Sold in USDC', '1000000');
    const inEurc = await paidEvent('Sold in EURC', '1000000', { asset: 'EURC' });
    const buyer = await aBuyer('assets');
    await buyer.api.ledger.faucet('10000000', 'EURC');
    const eurc = async () => {
      const { balances } = await buyer.api.ledger.balance();
      return BigInt(balances.find((balance) => balance.asset === 'EURC')?.amount ?? '0');
    };
    const eurcBefore = await eurc();

    // Without --asset, the first payment names the budget's asset.
    const first = await session(buyer.keyFile, { budget: '5000000' });
    expect(
      structured(await call(first.client, 'rsvp', { eventId: inUsdc.id, maxPrice: '1000000' })),
    ).toMatchObject({ charged: '1000000', budgetLeft: '4000000', budgetAsset: 'USDC' });
    const other = refused(await call(first.client, 'rsvp', { eventId: inEurc.id, maxPrice: '1000000' }));
    expect(other).toMatchObject({
      code: 'payment.budget_asset',
      asset: 'EURC',
      budgetAsset: 'USDC',
      budgetLeft: '4000000',
    });
    expect(other.detail).toContain('--asset');
    expect(await eurc()).toBe(eurcBefore);
    await expect(buyer.api.tickets.held(inEurc.id)).rejects.toMatchObject({ code: 'ticket.not_found' });

    // --asset names it: the USDC offer is the foreign one now.
    const named = await session(buyer.keyFile, { budget: '5000000', asset: 'EURC' });
    const usdcOffer = await paidEvent('Also in USDC', '1000000');
    expect(
      refused(await call(named.client, 'rsvp', { eventId: usdcOffer.id, maxPrice: '1000000' })),
    ).toMatchObject({ code: 'payment.budget_asset', asset: 'USDC', budgetAsset: 'EURC' });
    expect(await usdc(buyer.api)).toBe(buyer.before - 1_000_000n);
  });

  it('ask, upvote, promote; open a poll and vote once', async () => {
    await host.api.events.start(free.id);
    await bob.api.tickets.rsvp(free.id);
    const asked = structured<{ id: string; body: string }>(
      await call(aliceMcp, 'question_ask', { eventId: free.id, body: 'What does a model ask?' }),
    );
    expect(
      structured<{ upvotes: number }>(
        await call(bobMcp, 'question_upvote', { eventId: free.id, questionId: asked.id }),
      ).upvotes,
    ).toBe(1);
    const top = structured<{ questions: Array<{ id: string; upvotes: number }> }>(
      await call(aliceMcp, 'questions_list', { eventId: free.id }),
    );
    expect(top.questions[0]).toMatchObject({ id: asked.id, upvotes: 1 });
    expect(
      refused(await call(aliceMcp, 'question_promote', { eventId: free.id, questionId: asked.id })).code,
    ).toBe('role.forbidden');
    structured(await call(hostMcp, 'question_promote', { eventId: free.id, questionId: asked.id }));

    const poll = structured<{ id: string; question: string; options: Array<{ id: string; text: string }> }>(
      await call(hostMcp, 'poll_open', {
        eventId: free.id,
        question: 'Tabs or spaces?',
        options: ['tabs', 'spaces'],
      }),
    );
    expect(poll.options.map((option) => option.text)).toEqual(['tabs', 'spaces']);
    structured(
      await call(aliceMcp, 'poll_vote', {
        eventId: free.id,
        pollId: poll.id,
        optionIds: [poll.options[1]!.id],
      }),
    );
    expect(
      refused(
        await call(aliceMcp, 'poll_vote', {
          eventId: free.id,
          pollId: poll.id,
          optionIds: [poll.options[0]!.id],
        }),
      ).code,
    ).toBe('poll.already_voted');
    const polls = structured<{ polls: Array<{ id: string }> }>(
      await call(bobMcp, 'polls_list', { eventId: free.id }),
    );
    expect(polls.polls.map((listed) => listed.id)).toContain(poll.id);
  });

  it('a subscribed attendee is told of a stage post within 2 s, and resources/read shows it', async () => {
    const uri = `townhall://events/${free.id}`;
    const listed = await aliceMcp.listResources();
    expect(listed.resources.map((resource) => resource.uri)).toContain(uri);

    const updates: number[] = [];
    aliceMcp.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      if (notification.params.uri === uri) updates.push(Date.now());
    });
    await aliceMcp.subscribeResource({ uri });
    // The live stream is open once a change arrives: post until the first one is told (the stream
    // connects after subscribe answers), then time a fresh post.
    await waitFor(
      'a first update',
      async () => {
        await call(hostMcp, 'stage_post', { eventId: free.id, body: 'warming up' });
        await new Promise((resolve) => setTimeout(resolve, 300));
        return updates.length > 0 || undefined;
      },
      15_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const seen = updates.length;
    const body = `Welcome, models (${Date.now()})`;
    const posted = Date.now();
    structured(await call(hostMcp, 'stage_post', { eventId: free.id, body }));
    await waitFor('the update', async () => (updates.length > seen ? true : undefined), 5_000);
    expect(updates[seen]! - posted).toBeLessThan(2_000);

    const read = await aliceMcp.readResource({ uri });
    const [content] = read.contents;
    expect(content?.mimeType).toBe('application/json');
    const live = JSON.parse((content as { text: string }).text) as {
      event: EventView;
      stage: Array<{ body: string | null }>;
      questions: unknown[];
      polls: unknown[];
    };
    expect(live.event.id).toBe(free.id);
    expect(live.stage.map((message) => message.body)).toContain(body);
    expect(live.questions.length).toBeGreaterThan(0);
    expect(live.polls.length).toBeGreaterThan(0);
    const stage = structured<{ messages: Array<{ body: string | null }> }>(
      await call(bobMcp, 'stage_read', { eventId: free.id }),
    );
    expect(stage.messages.map((message) => message.body)).toContain(body);

    // Unsubscribed: the next change is not told.
    await aliceMcp.unsubscribeResource({ uri });
    const after = updates.length;
    structured(await call(hostMcp, 'stage_post', { eventId: free.id, body: 'nobody is told' }));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(updates.length).toBe(after);
    expect(refused(await call(hostMcp, 'event_cancel', { eventId: free.id })).code).toMatch(/^event\./);
  });

  it('the process exits when the client closes', async () => {
    const { client, transport } = await session(bob.keyFile);
    await client.subscribeResource({ uri: `townhall://events/${free.id}` });
    const pid = transport.pid!;
    const started = Date.now();
    await client.close();
    await waitFor(
      'the process to exit',
      async () => {
        try {
          process.kill(pid, 0);
          return undefined;
        } catch {
          return true;
        }
      },
      5_000,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('townhall mcp for other clients (the MCP Inspector CLI, Streamable HTTP) and through a Townhall restart', () => {
  let server: StandaloneProcess;
  let dir: string;
  let keyFile: string;
  let eventId: string;
  let api: AgentClient;
  let port: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'townhall-mcp-clients-'));
    port = await freePort();
    server = await StandaloneProcess.start({ PUBLIC_BASE_URL: STANDALONE_AUDIENCE }, port, {
      dataDir: join(dir, 'data'),
    });
    api = new AgentClient({ baseUrl: server.baseUrl, audience: STANDALONE_AUDIENCE });
    keyFile = join(dir, 'agent.json');
    await saveKeyFile(keyFile, api.key);
    eventId = (
      await api.events.create({
        title: 'Seen by the Inspector',
        startsAt: inHours(1),
        endsAt: inHours(2),
        timezone: 'UTC',
        capacity: 10,
      })
    ).id;
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const townhallMcp = (...rest: string[]) => [
    process.execPath,
    CLI,
    '--url',
    server.baseUrl,
    '--audience',
    STANDALONE_AUDIENCE,
    '--key',
    keyFile,
    'mcp',
    ...rest,
  ];

  /** `npx @modelcontextprotocol/inspector --cli <townhall mcp> --method ...`, as a user runs it. */
  function inspector(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, [INSPECTOR, '--cli', ...townhallMcp(), ...args], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env['PATH'] ?? '',
        ...compileCacheEnv(),
        HOME: dir,
        MCP_CATALOG_PATH: join(dir, 'catalog.json'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('error', reject);
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  }

  it('the Inspector lists the tools (portable schemas: --strict) and calls events_list', async () => {
    const [listed, called] = await Promise.all([
      inspector('--method', 'tools/list', '--strict'),
      inspector('--method', 'tools/call', '--tool-name', 'events_list', '--tool-arg', 'status=scheduled'),
    ]);
    expect(listed).toMatchObject({ code: 0 });
    const tools = (JSON.parse(listed.stdout) as { tools: Array<{ name: string }> }).tools;
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    expect(called).toMatchObject({ code: 0 });
    const result = JSON.parse(called.stdout) as { structuredContent: { events: Array<{ id: string }> } };
    expect(result.structuredContent.events.map((event) => event.id)).toContain(eventId);
  });

  /** `townhall mcp --http 0 ...` as a process: its URL and token (read from its stderr), and how to stop it. */
  async function httpServer(...rest: string[]) {
    const [command, ...args] = townhallMcp('--http', '0', ...rest);
    const child = spawn(command!, args, {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...compileCacheEnv(), HOME: dir },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const stop = async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      return child.exitCode;
    };
    try {
      const url = await waitFor(
        'the URL',
        async () => /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1],
        15_000,
      );
      await waitFor(
        'the token line',
        async () => stderr.includes('townhall mcp: bearer token') || undefined,
        5_000,
      );
      // Printed when made for this run; from --token-file, only the file is named.
      const token = /bearer token ([A-Za-z0-9_-]{43}) \(/.exec(stderr)?.[1];
      return { url, token, stop, stderr: () => stderr };
    } catch (error) {
      await stop();
      throw new Error(`townhall mcp --http did not start; stderr: ${stderr}`, { cause: error });
    }
  }

  /** An official MCP client of that server, sending the token; with `approve`, it supports elicitation. */
  async function httpClient(url: string, token: string, approve?: () => ElicitResult): Promise<Client> {
    const client = new Client(
      { name: 'townhall-e2e-http', version: '1.0.0' },
      { capabilities: approve ? { elicitation: { form: {} } } : {} },
    );
    if (approve) client.setRequestHandler(ElicitRequestSchema, () => approve());
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }

  it('--http serves Streamable HTTP on 127.0.0.1 only, to the bearer of its token, refusing a foreign Host (DNS rebinding)', async () => {
    const mcp = await httpServer();
    const token = mcp.token!;
    try {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(mcp.stderr().split(token)).toHaveLength(2);

      // Without the token, or with another: 401 before anything else is looked at.
      const wrongOnes: Array<Record<string, string>> = [
        {},
        { authorization: `Bearer ${'x'.repeat(43)}` },
        { authorization: token },
      ];
      for (const headers of wrongOnes) {
        const response = await fetch(mcp.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
      }
      const stranger = new Client({ name: 'townhall-e2e-stranger', version: '1.0.0' });
      await expect(
        stranger.connect(new StreamableHTTPClientTransport(new URL(mcp.url))),
      ).rejects.toMatchObject({
        code: 401,
      });
      const wrong = new Client({ name: 'townhall-e2e-wrong', version: '1.0.0' });
      await expect(
        wrong.connect(
          new StreamableHTTPClientTransport(new URL(mcp.url), {
            requestInit: { headers: { authorization: `Bearer ${token.slice(1)}A` } },
          }),
        ),
      ).rejects.toMatchObject({ code: 401 });

      const client = await httpClient(mcp.url, token);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
      const listed = (await client.callTool({ name: 'events_list', arguments: {} })) as CallToolResult;
      expect(JSON.stringify(listed.structuredContent)).toContain(eventId);
      await client.close();

      // A page on evil.example that resolves to 127.0.0.1 sends its own Host: without the token it
      // learns nothing (401); with it (which no page has), the Host check refuses it all the same.
      const bearer = { authorization: `Bearer ${token}` };
      expect(await statusOf(mcp.url, { host: 'evil.example' })).toBe(401);
      expect(await statusOf(mcp.url, { host: 'evil.example', ...bearer })).toBe(403);
      expect(await statusOf(mcp.url, { host: `localhost:${new URL(mcp.url).port}`, ...bearer })).toBe(200);
      const noSession = await fetch(mcp.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...bearer,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(noSession.status).toBe(400);
    } finally {
      expect(await mcp.stop()).toBe(0);
    }
  }, 60_000);

  it('--http with --token-file uses that token, and refuses a file others can read', async () => {
    const token = `${'t'.repeat(40)}-file`;
    const tokenFile = join(dir, 'mcp-token');
    await writeFile(tokenFile, `${token}\n`, { mode: 0o644 });
    await chmod(tokenFile, 0o644);
    const [command, ...args] = townhallMcp('--http', '0', '--token-file', tokenFile);
    const refusedRun = spawnSync(command!, args, {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...compileCacheEnv(), HOME: dir },
      encoding: 'utf8',
    });
    expect(refusedRun.status).toBe(1);
    expect(refusedRun.stderr).toContain('error token.too_open');

    await chmod(tokenFile, 0o600);
    const mcp = await httpServer('--token-file', tokenFile);
    try {
      expect(mcp.token).toBeUndefined();
      expect(mcp.stderr()).toContain(`bearer token from ${tokenFile}`);
      expect(mcp.stderr()).not.toContain(token);
      const client = await httpClient(mcp.url, token);
      expect(
        structured((await client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult),
      ).toEqual({
        agentId: api.agentId,
      });
      await client.close();
    } finally {
      await mcp.stop();
    }
  }, 60_000);

  it('an HTTP session idle for --idle-timeout is closed: its id is then unknown (404); a busy one lives on', async () => {
    const mcp = await httpServer('--idle-timeout', '2s');
    const token = mcp.token!;
    try {
      const idle = await httpClient(mcp.url, token);
      const busy = await httpClient(mcp.url, token);
      const idleId = (idle.transport as StreamableHTTPClientTransport).sessionId!;
      expect(idleId).toMatch(/^[0-9a-f-]{36}$/);
      // The busy client calls every 500 ms for 4 s: each request starts its idle time again.
      const started = Date.now();
      while (Date.now() - started < 4_000) {
        await busy.callTool({ name: 'whoami', arguments: {} });
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(structured((await busy.callTool({ name: 'whoami', arguments: {} })) as CallToolResult)).toEqual({
        agentId: api.agentId,
      });
      await expect(idle.listTools()).rejects.toMatchObject({ code: 404 });
      const raw = await fetch(mcp.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          'mcp-session-id': idleId,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
      });
      expect(raw.status).toBe(404);
      expect(mcp.stderr()).toContain(`session ${idleId} closed after 2 s without a request`);
      await Promise.all([idle.close(), busy.close()]);
    } finally {
      await mcp.stop();
    }
  }, 60_000);

  it('over HTTP, a payment beyond the budget is put only to the session that asked for it', async () => {
    const seller = new AgentClient({ baseUrl: server.baseUrl, audience: STANDALONE_AUDIENCE });
    const priced = await seller.events.create({
      title: 'Two sessions, one asks',
      startsAt: inHours(3),
      endsAt: inHours(4),
      timezone: 'UTC',
      capacity: 10,
      ticketing: { mode: 'single', price: '700000' },
    });
    const mcp = await httpServer();
    try {
      const asked = { a: 0, b: 0 };
      const a = await httpClient(mcp.url, mcp.token!, () => ((asked.a += 1), { action: 'decline' }));
      const b = await httpClient(mcp.url, mcp.token!, () => ((asked.b += 1), { action: 'decline' }));
      const rsvp = { name: 'rsvp', arguments: { eventId: priced.id, maxPrice: '700000' } };
      expect(refused((await a.callTool(rsvp)) as CallToolResult)).toMatchObject({ code: 'payment.budget' });
      expect(asked).toEqual({ a: 1, b: 0 });
      expect(refused((await b.callTool(rsvp)) as CallToolResult)).toMatchObject({ code: 'payment.budget' });
      expect(asked).toEqual({ a: 1, b: 1 });
      await Promise.all([a.close(), b.close()]);
    } finally {
      await mcp.stop();
    }
  }, 60_000);

  /** `townhall mcp` over stdio for this describe's agent, at `url`. */
  async function stdioSession(url: string): Promise<Client> {
    const [command, ...args] = townhallMcp();
    const urlAt = args.indexOf('--url') + 1;
    args[urlAt] = url;
    const client = new Client({ name: 'townhall-e2e-restart', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: command!,
        args,
        cwd: REPO_ROOT,
        env: { PATH: process.env['PATH'] ?? '', ...compileCacheEnv(), HOME: dir },
        stderr: 'ignore',
      }),
    );
    return client;
  }

  it('a Townhall that does not answer is a tool error network.unreachable, and the session goes on', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const client = await stdioSession(nobody);
    try {
      for (const name of ['events_list', 'whoami', 'tickets_mine']) {
        const result = (await client.callTool({ name, arguments: {} })) as CallToolResult;
        expect(refused(result)).toMatchObject({ code: 'network.unreachable' });
        expect(refused(result).detail).toContain(nobody);
      }
      await expect(client.subscribeResource({ uri: `townhall://events/${eventId}` })).rejects.toThrow();
      expect((await client.listTools()).tools).toHaveLength(TOOLS.length);
    } finally {
      await client.close();
    }
  });

  it('a subscription outlives a Townhall restart: the stream resumes and the next post is told', async () => {
    await api.events.start(eventId);
    const client = await stdioSession(server.baseUrl);
    try {
      const uri = `townhall://events/${eventId}`;
      const updates: number[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
        if (notification.params.uri === uri) updates.push(Date.now());
      });
      await client.subscribeResource({ uri });
      await waitFor('the stream', async () => {
        await api.stage.post(eventId, 'before the restart');
        await new Promise((resolve) => setTimeout(resolve, 300));
        return updates.length > 0 ? true : undefined;
      });

      await server.stop();
      server = await StandaloneProcess.start({ PUBLIC_BASE_URL: STANDALONE_AUDIENCE }, port, {
        dataDir: join(dir, 'data'),
      });
      const seen = updates.length;
      await waitFor(
        'an update after the restart',
        async () => {
          await api.stage.post(eventId, `after the restart ${Date.now()}`);
          await new Promise((resolve) => setTimeout(resolve, 500));
          return updates.length > seen ? true : undefined;
        },
        20_000,
      );
      const read = await client.readResource({ uri });
      expect((read.contents[0] as { text: string }).text).toContain('after the restart');
    } finally {
      await client.close();
    }
  }, 90_000);
});
