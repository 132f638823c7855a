import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { generateAgentKey, SignatureVerifier } from '@townhall/auth';
import {
  Directory,
  DomainError,
  EventReportSchema,
  Events,
  MAX_CARDS_AT_ONCE,
  Reports,
  type DirectoryCard,
  type EngagementAnswer,
  type HolderSales,
  type SalesReport,
} from '@townhall/contracts';
import { createLogger } from '@townhall/platform';
import { AgentClient, TownhallError } from '@townhall/sdk';
import { anEventView, ScriptedServices, type AskedOfServices } from '@townhall/testing';
import { MemoryNonceStore } from '../auth/nonce-store.js';
import { createGateway } from '../gateway.js';
import { allInOrder, handlesOf } from './event-report.js';
import { REPORT_CSV_COLUMNS } from './report-csv.js';

const AUDIENCE = 'https://townhall.test';
const EVENT_ID = '6f1c3e2a-1b2c-4d5e-8f90-123456789abc';
const AT = '2027-03-04T19:00:00.000Z';

const host = new AgentClient({ baseUrl: 'http://unused.test', audience: AUDIENCE });
const moderator = new AgentClient({ baseUrl: 'http://unused.test', audience: AUDIENCE });
const stranger = new AgentClient({ baseUrl: 'http://unused.test', audience: AUDIENCE });

/** 150 ticket holders (two batches of cards), each with a card but the odd ones. */
const ids = Array.from({ length: 150 }, () => generateAgentKey().agentId);
const indexOf = (agentId: string) => ids.indexOf(agentId);
const holders: HolderSales[] = ids.map((agentId, at) => ({
  agentId,
  tierId: at === 0 ? 'vip' : 'general',
  code: at === 1 ? 'HALF' : null,
  paid: at === 0 ? '4000' : '1000',
  asset: 'USDC',
  refunded: '0',
}));

const sales: SalesReport = {
  registrations: {
    total: 150,
    byTier: { vip: 1, general: 149 },
    overTime: [
      { at: '2027-03-01T00:00:00.000Z', total: 10 },
      { at: AT, total: 150 },
    ],
  },
  revenue: [{ asset: 'USDC', network: null, amount: '153000' }],
  refunds: { count: 0, amounts: [] },
  codes: [{ code: 'HALF', uses: 1 }],
};

const engagement: EngagementAnswer = {
  report: {
    attendance: {
      present: 2,
      peakConcurrent: 3,
      viewersOverTime: [{ at: AT, viewers: 3 }],
      byAgent: [
        { agentId: holders[2]!.agentId, minutes: 30, firstSeenAt: AT, lastSeenAt: AT },
        { agentId: holders[3]!.agentId, minutes: 1.5, firstSeenAt: AT, lastSeenAt: AT },
      ],
    },
    questions: {
      asked: 1,
      promoted: 0,
      upvotes: 0,
      top: [{ id: 'q1', authorId: holders[3]!.agentId, body: '=1+1, "why"?', upvotes: 0, state: 'open' }],
    },
    polls: [],
    stage: { messages: 4 },
  },
  agents: [{ agentId: holders[3]!.agentId, questionsAsked: 1, votesCast: 2 }],
};

function card(agentId: string): DirectoryCard {
  return {
    agentId,
    handle: `h_${String(indexOf(agentId)).padStart(3, '0')}`,
    displayName: null,
    bio: null,
    avatarUrl: null,
    links: [],
    createdAt: AT,
    updatedAt: AT,
  };
}

/** The services as the report meets them: the host and the moderator may read, nobody else. */
function answer({ pattern, data, meta }: AskedOfServices): unknown {
  const { eventId } = data as { eventId?: string };
  if (eventId !== undefined && eventId !== EVENT_ID)
    throw new DomainError('event.not_found', 'No such event');
  const allowed = meta.caller === host.agentId || meta.caller === moderator.agentId;
  switch (pattern) {
    case Events.get.pattern:
      return anEventView({ id: EVENT_ID, hostId: host.agentId, moderators: [moderator.agentId] });
    case Reports.sales.pattern:
      if (!allowed) throw new DomainError('role.forbidden', 'host or moderator');
      return { sales, holders };
    case Reports.engagement.pattern:
      if (!allowed) throw new DomainError('role.forbidden', 'host or moderator');
      return engagement;
    case Directory.getCards.pattern: {
      const { agentIds } = data as { agentIds: string[] };
      expect(agentIds.length).toBeLessThanOrEqual(MAX_CARDS_AT_ONCE);
      return { items: agentIds.filter((id) => indexOf(id) % 2 === 0).map(card) };
    }
    default:
      throw new Error(`not asked in this test: ${pattern}`);
  }
}

describe('GET /events/{id}/report and /report.csv', () => {
  const services = new ScriptedServices(answer);
  let app: NestFastifyApplication;
  let base: string;
  const as = (agent: AgentClient) => new AgentClient({ baseUrl: base, key: agent.key, audience: AUDIENCE });

  beforeAll(async () => {
    app = await createGateway({
      audience: AUDIENCE,
      bodyLimit: 64 * 1024,
      logger: createLogger('reports-test', 'silent'),
      services,
      nonces: new MemoryNonceStore(),
      verifier: new SignatureVerifier(),
      readiness: {},
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(() => {
    services.asked.length = 0;
  });

  it("answers a moderator the report: both parts, the event's status, each attendee's handle", async () => {
    const before = Date.now();
    const report = await as(moderator).events.report(EVENT_ID);
    expect(EventReportSchema.parse(report)).toEqual(report);
    expect(report).toMatchObject({ eventId: EVENT_ID, status: 'live', ...sales });
    expect(Date.parse(report.generatedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(report.attendance.byAgent).toEqual([
      { agentId: holders[2]!.agentId, handle: 'h_002', minutes: 30, firstSeenAt: AT, lastSeenAt: AT },
      { agentId: holders[3]!.agentId, handle: null, minutes: 1.5, firstSeenAt: AT, lastSeenAt: AT },
    ]);
    expect(report.questions).toEqual(engagement.report.questions);
    expect(report.stage).toEqual({ messages: 4 });
    // The three parts at once, with the caller; then the cards of the attendees only.
    expect(services.asked.map(({ pattern }) => pattern)).toEqual([
      Events.get.pattern,
      Reports.sales.pattern,
      Reports.engagement.pattern,
      Directory.getCards.pattern,
    ]);
    for (const { meta } of services.asked) expect(meta.caller).toBe(moderator.agentId);
    expect(services.asked[3]!.data).toEqual({ agentIds: [holders[2]!.agentId, holders[3]!.agentId] });
  });

  it('refuses an agent the services refuse, and an unknown event as unknown', async () => {
    await expect(as(stranger).events.report(EVENT_ID)).rejects.toMatchObject({
      status: 403,
      code: 'role.forbidden',
    });
    await expect(as(host).events.report('no-such-event')).rejects.toMatchObject({
      status: 404,
      code: 'event.not_found',
    });
    await expect(as(stranger).events.reportCsv('no-such-event')).rejects.toMatchObject({
      status: 404,
      code: 'event.not_found',
    });
  });

  it('is signed only', async () => {
    const response = await fetch(`${base}/events/${EVENT_ID}/report`);
    expect(response.status).toBe(401);
    const csv = await fetch(`${base}/events/${EVENT_ID}/report.csv`);
    expect(csv.status).toBe(401);
  });

  it('answers the host the CSV: one line per holder, handles asked in batches', async () => {
    const agent = as(host);
    const response = await agent.request<string>('GET', `/events/${EVENT_ID}/report.csv`, {
      headers: { accept: 'text/csv' },
    });
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="event-${EVENT_ID}-report.csv"`,
    );
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    const lines = response.data.split('\r\n');
    expect(lines[0]).toBe(REPORT_CSV_COLUMNS.join(','));
    expect(lines.at(-1)).toBe('');
    expect(lines).toHaveLength(holders.length + 2);
    expect(lines[1]).toBe(`${holders[0]!.agentId},h_000,vip,,4000,0,0,0,0`);
    expect(lines[2]).toBe(`${holders[1]!.agentId},,general,HALF,1000,0,0,0,0`);
    expect(lines[3]).toBe(`${holders[2]!.agentId},h_002,general,,1000,0,30,0,0`);
    expect(lines[4]).toBe(`${holders[3]!.agentId},,general,,1000,0,1.5,1,2`);
    const batches = services.asked.filter(({ pattern }) => pattern === Directory.getCards.pattern);
    expect(batches.map(({ data }) => (data as { agentIds: string[] }).agentIds.length)).toEqual([100, 50]);
    expect(await agent.events.reportCsv(EVENT_ID)).toBe(response.data);
  });

  it('refuses the CSV to a moderator, who may read the report', async () => {
    const refused = await as(moderator)
      .events.reportCsv(EVENT_ID)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TownhallError);
    expect(refused).toMatchObject({ status: 403, code: 'role.forbidden' });
    expect((refused as TownhallError).problem.detail).toMatch(/Only the host/);
    // Nobody's card was read for it.
    expect(services.asked.map(({ pattern }) => pattern)).not.toContain(Directory.getCards.pattern);
  });

  it('is in the API document under Reports, the CSV as text/csv with its header', async () => {
    const document = (await (await fetch(`${base}/openapi.json`)).json()) as {
      tags: Array<{ name: string; description?: string }>;
      paths: Record<string, Record<string, { tags: string[]; responses: Record<string, unknown> }>>;
    };
    expect(document.tags.find((tag) => tag.name === 'Reports')?.description).toMatch(/CSV/);
    const json = document.paths['/events/{id}/report']!['get']!;
    const csv = document.paths['/events/{id}/report.csv']!['get']!;
    expect(json.tags).toEqual(['Reports']);
    expect(json.responses['200']).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/EventReport' } } },
    });
    expect(csv.responses['200']).toMatchObject({
      headers: { 'Content-Disposition': { $ref: '#/components/headers/Content-Disposition' } },
      content: { 'text/csv': { schema: { type: 'string' }, example: expect.stringContaining('agentId,') } },
    });
    for (const operation of [json, csv]) expect(Object.keys(operation.responses)).toContain('403');
  });
});

describe('handlesOf', () => {
  it('asks each agent once, at most MAX_CARDS_AT_ONCE a batch; null without a card', async () => {
    const asked: string[][] = [];
    const names = Array.from({ length: 250 }, (_, at) => `a${at}`);
    const handles = await handlesOf([...names, 'a0', 'a1'], async (batch) => {
      asked.push(batch);
      return { items: batch.filter((id) => id !== 'a7').map((id) => ({ ...card(id), handle: `h${id}` })) };
    });
    expect(asked.map((batch) => batch.length)).toEqual([100, 100, 50]);
    expect(new Set(asked.flat()).size).toBe(250);
    expect(handles.size).toBe(250);
    expect(handles.get('a0')).toBe('ha0');
    expect(handles.get('a7')).toBeNull();
  });

  it('asks nothing for no agents', async () => {
    const handles = await handlesOf([], () => Promise.reject(new Error('not asked')));
    expect(handles.size).toBe(0);
  });
});

describe('allInOrder', () => {
  it('answers every value, or the first refusal in the order given, not in time', async () => {
    expect(await allInOrder([Promise.resolve(1), Promise.resolve('two')] as const)).toEqual([1, 'two']);
    const late = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new DomainError('event.not_found', 'late')), 20),
    );
    await expect(
      allInOrder([late, Promise.reject(new DomainError('role.forbidden', 'early'))] as const),
    ).rejects.toMatchObject({ code: 'event.not_found' });
  });
});
