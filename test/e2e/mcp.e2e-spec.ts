import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
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
import { freePort, REPO_ROOT, StandaloneProcess, Topology, waitFor } from '@townhall/testing';

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
].sort();

/** A running Townhall, in one of its two modes. */
interface Deployment {
  baseUrl: string;
  /** `--audience` for the CLI, when the server's PUBLIC_BASE_URL is not its URL's origin. */
  audience: string | undefined;
  stop(): Promise<void>;
}

async function distributed(): Promise<Deployment> {
  const topology = await Topology.start({ env: { LEDGER_FAUCET: 'true' } });
  return { baseUrl: topology.baseUrl, audience: undefined, stop: () => topology.stop() };
}

async function standalone(): Promise<Deployment> {
  const server = await StandaloneProcess.start({ PUBLIC_BASE_URL: STANDALONE_AUDIENCE });
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

  const cliArgs = (keyFile: string, ...rest: string[]) => [
    CLI,
    '--url',
    deployment.baseUrl,
    ...(deployment.audience ? ['--audience', deployment.audience] : []),
    '--key',
    keyFile,
    'mcp',
    ...rest,
  ];

  /** The real `townhall mcp` process, connected over stdio as an LLM runtime starts it. */
  async function session(
    keyFile: string,
    options: { budget?: string; approve?: (request: { message: string }) => ElicitResult } = {},
  ): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: cliArgs(keyFile, ...(options.budget ? ['--budget', options.budget] : [])),
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', HOME: dir },
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
    expect(Object.keys(rsvp.inputSchema.properties ?? {}).sort()).toEqual(['eventId', 'maxPrice', 'tierId']);
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

    const atZero = refused(await call(aliceMcp, 'rsvp', { eventId: paid.id }));
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
      [first!, second!].map((event) => call(racing.client, 'rsvp', { eventId: event.id })),
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
    expect(refused(await call(declining.client, 'rsvp', { eventId: paid.id }))).toMatchObject({
      code: 'payment.budget',
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('2500000');
    expect(await usdc(bob.api)).toBe(before);

    const accepting = await session(bob.keyFile, {
      approve: () => ({ action: 'accept', content: { approve: true } }),
    });
    const bought = structured<{ charged: string; budgetLeft: string }>(
      await call(accepting.client, 'rsvp', { eventId: paid.id }),
    );
    expect(bought).toMatchObject({ charged: '2500000', budgetLeft: '0' });
    expect(await usdc(bob.api)).toBe(before - 2_500_000n);
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
      env: { PATH: process.env['PATH'] ?? '', HOME: dir, MCP_CATALOG_PATH: join(dir, 'catalog.json') },
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

  it('--http serves Streamable HTTP on 127.0.0.1 only, refusing a foreign Host (DNS rebinding)', async () => {
    const [command, ...args] = townhallMcp('--http', '0');
    const child = spawn(command!, args, {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', HOME: dir },
    });
    try {
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const url = await waitFor(
        'the URL',
        async () => /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1],
        15_000,
      );
      const client = new Client({ name: 'townhall-e2e-http', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
      const listed = (await client.callTool({ name: 'events_list', arguments: {} })) as CallToolResult;
      expect(JSON.stringify(listed.structuredContent)).toContain(eventId);
      await client.close();

      // A page on evil.example that resolves to 127.0.0.1 sends its own Host: refused before any work.
      expect(await statusOf(url, { host: 'evil.example' })).toBe(403);
      expect(await statusOf(url, { host: `localhost:${new URL(url).port}` })).not.toBe(403);
      const noSession = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(noSession.status).toBe(400);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
    }
    expect(child.exitCode).toBe(0);
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
        env: { PATH: process.env['PATH'] ?? '', HOME: dir },
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
