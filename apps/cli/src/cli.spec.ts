import { createHash, createPublicKey } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVerifier, httpbis } from 'http-message-signatures';
import type { AccessRequestView, CodeView } from '@townhall/contracts';
import { generateAgentKey } from '@townhall/sdk';
import { loadKeyFile } from '@townhall/sdk/key-file';
import { aCodeView, aStageMessageView, anAccessRequestView } from '@townhall/testing';
import { runInMemory } from '../test/in-memory-cli.js';

/** Runs one command line in memory: its exit code and what it printed. */
const townhall = (home: string, ...argv: string[]) => runInMemory(argv, { home });

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** What a fake gateway saw of one request: `METHOD /path?query signed|unsigned [body]`. */
type Seen = string;

/** A fake gateway's answer with another status than 200. */
class Answer {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

/**
 * A gateway stand-in on a free local port: it records each request on one line and answers with
 * what `reply` gives for `METHOD /path` (200, JSON; an `Answer`: its status and body).
 */
async function fakeGateway(reply: (route: string, signed: boolean) => unknown) {
  const seen: Seen[] = [];
  /** The Idempotency-Key of each request that carried one, in order. */
  const idempotencyKeys: string[] = [];
  const server = createHttpServer((request: IncomingMessage, response: ServerResponse) => {
    const key = request.headers['idempotency-key'];
    if (typeof key === 'string') idempotencyKeys.push(`${request.method} ${request.url} ${key}`);
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const signed = request.headers.authorization !== undefined && request.headers['x-nonce'] !== undefined;
      seen.push(
        [request.method, request.url, signed ? 'signed' : 'unsigned', ...(body ? [body] : [])].join(' '),
      );
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      const answer = reply(`${request.method} ${path}`, signed);
      const [status, json] = answer instanceof Answer ? [answer.status, answer.body] : [200, answer];
      response.writeHead(status, {
        'content-type': status >= 400 ? 'application/problem+json' : 'application/json',
      });
      response.end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    idempotencyKeys,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** host-a's free weekly series of 50 seats from 2027-03-04, as the gateway shows it, by its rule. */
const officeHours = (rrule: string) => ({
  id: 's1',
  title: 'Office hours',
  description: '',
  hostId: 'host-a',
  recurrence: { startsAt: '2027-03-04T19:00', timezone: 'UTC', rrule },
  template: {
    durationMinutes: 60,
    capacity: 50,
    ticketing: { mode: 'free' },
    agenda: [],
    moderators: [],
    speakers: [],
  },
});

const QUESTION = {
  id: 'q1',
  eventId: 'e1',
  authorId: 'a',
  body: 'Why?',
  upvotes: 1,
  state: 'pending',
  createdAt: '2027-03-04T19:00:00.000Z',
};
const HIDDEN = aStageMessageView();
const BLOCK = {
  eventId: 'e1',
  agentId: 'agent-b',
  blocked: true,
  blockedBy: 'host',
  blockedAt: '2027-03-04T19:05:00.000Z',
};

describe('townhall command line', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'townhall-cli-'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('prints help (exit 0) and refuses a wrong command line with exit 2', async () => {
    const help = await townhall(home, '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: townhall [options] [command]');
    for (const command of [
      'keygen',
      'whoami',
      'directory',
      'events',
      'rsvp',
      'tickets',
      'waitlist',
      'invites',
      'requests',
      'codes',
      'stage',
      'questions',
      'moderation',
      'polls',
      'recording',
      'series',
      'ledger',
      'webhooks',
      'sign',
      'demo',
    ])
      expect(help.stdout).toContain(`  ${command}`);

    const unknown = await townhall(home, 'dance');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error usage: unknown command 'dance'/);
    expect((await townhall(home, 'events', 'create', '--title', 'x', '--starts-at', 'tomorrow')).code).toBe(
      2,
    );
    expect((await townhall(home, 'rsvp', 'e1', '--max-price', '2.5')).code).toBe(2);
    expect((await townhall(home, 'events', 'get')).stderr).toContain("missing required argument 'eventId'");
    expect((await townhall(home, 'events')).code).toBe(2);
    expect((await townhall(home, '--url', 'ftp://x', 'events', 'list')).stderr).toBe(
      'error usage: ftp://x must be an http:// or https:// URL (--url or TOWNHALL_URL)\n',
    );
  });

  it('creates a key once, reads it back, and refuses one others can read', async () => {
    const made = await townhall(home, '--json', 'keygen');
    expect(made.code).toBe(0);
    const { agentId, keyFile } = JSON.parse(made.stdout) as { agentId: string; keyFile: string };
    expect(keyFile).toBe(join(home, '.townhall', 'key.json'));

    const again = await townhall(home, 'keygen');
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toMatch(/^error key\.exists: /);

    // Bare, for `$(townhall whoami)`; the details with --json.
    expect(await townhall(home, 'whoami')).toEqual({ code: 0, stdout: `${agentId}\n`, stderr: '' });
    expect(JSON.parse((await townhall(home, 'whoami', '--json')).stdout)).toEqual({ agentId, keyFile });
    await chmod(keyFile, 0o644);
    const open = await townhall(home, 'whoami');
    expect(open.code).toBe(1);
    expect(open.stderr).toContain('error key.too_open: permissions 0644');
    expect(open.stderr).toContain(`chmod 600 ${keyFile}`);

    const missing = await townhall(home, '--key', join(home, 'none.json'), 'ledger', 'balance');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error key\.not_found: no key at /);
  });

  it('with --json, prints every error as JSON on stderr, with the same exit codes', async () => {
    const parse = (run: { stderr: string }) => JSON.parse(run.stderr) as unknown;
    const unknown = await townhall(home, '--json', 'dance');
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(parse(unknown)).toEqual({ error: { code: 'usage', message: "unknown command 'dance'" } });
    const badOption = await townhall(home, 'events', 'list', '--limit', '0', '--json');
    expect(badOption.code).toBe(2);
    expect(parse(badOption)).toEqual({
      error: {
        code: 'usage',
        message: "option '--limit <n>' argument '0' is invalid. must be between 1 and 100",
      },
    });
    const noCommand = await townhall(home, '--json', 'events');
    expect(noCommand.code).toBe(2);
    expect(parse(noCommand)).toEqual({
      error: { code: 'usage', message: expect.stringContaining('missing') },
    });
    const noKey = await townhall(home, '--json', 'whoami');
    expect(noKey).toMatchObject({ code: 1, stdout: '' });
    expect(parse(noKey)).toEqual({
      error: {
        code: 'key.not_found',
        message: `no key at ${join(home, '.townhall', 'key.json')}`,
        hint: expect.stringContaining('townhall keygen'),
      },
    });
    const nothing = await townhall(home, '--json', 'events', 'update', 'e1');
    expect(nothing.code).toBe(2);
    expect(parse(nothing)).toMatchObject({ error: { code: 'usage' } });
    // `--json` after `--` is an argument, not the option.
    const word = await townhall(home, 'stage', 'post', 'e1', '--', '--json');
    expect(word.stderr).toMatch(/^error key\.not_found: /);
    // Without --json, an error is one human block, printed once.
    expect(
      (await townhall(home, 'events', 'update', 'e1', '--ends-at', '+1h', '--duration', '1h')).stderr,
    ).toBe('error usage: --ends-at and --duration exclude each other\n');
  });

  it('signs a request for curl without sending it', async () => {
    await townhall(home, 'keygen');
    const signed = await townhall(
      home,
      '--url',
      'http://127.0.0.1:1',
      '--json',
      'sign',
      'put',
      '/directory/me',
      '{"handle":"x_y"}',
    );
    expect(signed.code).toBe(0);
    expect(JSON.parse(signed.stdout)).toMatchObject({
      method: 'PUT',
      url: 'http://127.0.0.1:1/directory/me',
      headers: {
        authorization: expect.stringMatching(/^service \w+:\w+:\d{4}-/),
        'x-nonce': expect.any(String),
        'content-type': 'application/json',
      },
      body: '{"handle":"x_y"}',
    });
    const lines = await townhall(home, 'sign', 'GET', '/ledger/balance');
    expect(lines.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^-H 'authorization: service .+' \\$/),
      expect.stringMatching(/^-H 'x-nonce: [\w-]+'$/),
    ]);
    expect((await townhall(home, 'sign', 'GET', 'ledger')).code).toBe(2);
  });

  it('signs a request for curl with RFC 9421 headers instead, in every output form', async () => {
    const { agentId, keyFile } = JSON.parse((await townhall(home, '--json', 'keygen')).stdout) as {
      agentId: string;
      keyFile: string;
    };
    const body = '{"handle":"x_y"}';
    const signed = await townhall(
      home,
      ...['--url', 'http://127.0.0.1:1', '--json', 'sign', '--rfc9421', 'put', '/directory/me?x=1', body],
    );
    expect(signed.code).toBe(0);
    const call = JSON.parse(signed.stdout) as {
      method: string;
      url: string;
      headers: Record<string, string>;
      created: number;
      expires: number;
    };
    expect(call).toEqual({
      method: 'PUT',
      url: 'http://127.0.0.1:1/directory/me?x=1',
      headers: {
        'signature-input': expect.stringMatching(
          new RegExp(
            `^sig1=\\("@method" "@authority" "@path" "@query" "content-digest"\\);created=\\d+;expires=\\d+;nonce="[\\w-]{43}";keyid="${agentId}";alg="ed25519"$`,
          ),
        ),
        signature: expect.stringMatching(/^sig1=:[A-Za-z0-9+/]{86}==:$/),
        'content-digest': `sha-256=:${createHash('sha256').update(body).digest('base64')}:`,
        'content-type': 'application/json',
      },
      body,
      created: expect.any(Number),
      expires: call.created + 60,
      keyid: agentId,
      audience: 'http://127.0.0.1:1',
    });
    // What it printed verifies, on that request, with the official http-message-signatures.
    const key = await loadKeyFile(keyFile);
    const publicKey = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key.publicKey).toString('base64url') },
      format: 'jwk',
    });
    const verified = await httpbis.verifyMessage(
      {
        keyLookup: async ({ keyid }) =>
          keyid === agentId
            ? { id: agentId, algs: ['ed25519'], verify: createVerifier(publicKey, 'ed25519') }
            : null,
      },
      { method: call.method, url: call.url, headers: call.headers },
    );
    expect(verified).toBe(true);

    const lines = await townhall(
      home,
      'sign',
      '--rfc9421',
      '--keyid',
      'thumbprint',
      'GET',
      '/ledger/balance',
    );
    expect(lines.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^-H 'signature-input: sig1=\(.+;keyid="[\w-]{43}";alg="ed25519"' \\$/),
      expect.stringMatching(/^-H 'signature: sig1=:[A-Za-z0-9+/=]+:'$/),
    ]);
    const curl = await townhall(
      home,
      ...[
        '--url',
        'http://127.0.0.1:1',
        'sign',
        '--rfc9421',
        '--curl',
        'POST',
        '/events/e1/stage',
        `{"body":"it's"}`,
      ],
    );
    expect(curl.stdout.trimEnd().split('\n')).toEqual([
      "curl -sS -X POST 'http://127.0.0.1:1/events/e1/stage' \\",
      expect.stringMatching(/^ {2}-H 'signature-input: sig1=\(.+\);created=.+' \\$/),
      expect.stringMatching(/^ {2}-H 'signature: sig1=:.+:' \\$/),
      expect.stringMatching(/^ {2}-H 'content-digest: sha-256=:.+:' \\$/),
      "  -H 'content-type: application/json' \\",
      `  --data-raw '{"body":"it'\\''s"}'`,
    ]);
    // --keyid belongs to --rfc9421, and is one of two.
    const alone = await townhall(home, 'sign', '--keyid', 'thumbprint', 'GET', '/ledger/balance');
    expect(alone).toMatchObject({ code: 2, stdout: '' });
    expect(alone.stderr).toContain('add --rfc9421');
    expect((await townhall(home, 'sign', '--rfc9421', '--keyid', 'kid', 'GET', '/x')).code).toBe(2);
  });

  it('moderates: questions read signed only when they must be, approve, withdraw, report, hide, block', async () => {
    const gateway = await fakeGateway((route, signed) => {
      if (route === 'GET /events/e1/questions')
        return {
          items: [signed ? { ...QUESTION, reports: 2 } : { ...QUESTION, state: 'open' }],
          nextCursor: null,
        };
      if (route === 'POST /events/e1/stage/m1/hide') return HIDDEN;
      if (route === 'GET /events/e1/stage') return { items: [HIDDEN], nextCursor: null };
      if (route === 'GET /directory/handles/bob') return { agentId: 'agent-b', handle: 'bob' };
      if (route === 'GET /events/e1/blocks') return { items: [BLOCK], nextCursor: null };
      if (route === 'POST /events/e1/blocks') return BLOCK;
      if (route === 'DELETE /events/e1/blocks/agent-b')
        return { ...BLOCK, blocked: false, blockedBy: null, blockedAt: null };
      return { ...QUESTION, state: 'open' };
    });
    try {
      await townhall(home, 'keygen');
      const run = (...argv: string[]) => townhall(home, '--url', gateway.url, ...argv);

      // A public read needs no key file: the visitor signs nothing.
      const open = await townhall(join(home, 'elsewhere'), '--url', gateway.url, 'questions', 'list', 'e1');
      expect(open).toMatchObject({
        code: 0,
        stdout: 'ID  STATE  UPVOTES  QUESTION\nq1  open   1        Why?\n',
      });
      const pending = await run('questions', 'list', 'e1', '--state', 'pending');
      expect(pending.stdout).toBe(
        'ID  STATE    UPVOTES  REPORTS  QUESTION\nq1  pending  1        2        Why?\n',
      );
      expect((await run('questions', 'list', 'e1', '--state', 'withdrawn')).code).toBe(0);
      expect((await run('questions', 'list', 'e1', '--signed')).code).toBe(0);
      expect((await run('questions', 'approve', 'e1', 'q1')).stdout).toBe(
        'question q1  open  1 upvote  "Why?"\n',
      );
      expect((await run('questions', 'withdraw', 'e1', 'q1')).code).toBe(0);
      expect((await run('questions', 'report', 'e1', 'q1', '--reason', 'off topic')).code).toBe(0);
      expect((await run('questions', 'report', 'e1', 'q1')).code).toBe(0);
      expect((await run('stage', 'hide', 'e1', 'm1')).stdout).toBe(
        '#3 19:05:06 speaker: [hidden by a moderator]\n',
      );
      // By its sequence, as `stage list` shows it.
      expect((await run('stage', 'hide', 'e1', '#3')).code).toBe(0);
      expect((await run('stage', 'hide', 'e1', '7')).stderr).toBe(
        'error stage.message_not_found: event e1 has no stage message #7\n',
      );
      expect((await run('moderation', 'block', 'e1', 'agent-b')).stdout).toBe(
        'agent-b blocked in e1 by host (2027-03-04 19:05 UTC)\n',
      );
      expect((await run('moderation', 'unblock', 'e1', '@bob')).stdout).toBe('agent-b not blocked in e1\n');
      expect((await run('moderation', 'blocks', 'e1', '--limit', '5')).stdout).toBe(
        'AGENT    BLOCKED BY  SINCE\nagent-b  host        2027-03-04 19:05 UTC\n',
      );
      expect(gateway.seen).toEqual([
        'GET /events/e1/questions?sort=top unsigned',
        'GET /events/e1/questions?sort=top&state=pending signed',
        'GET /events/e1/questions?sort=top&state=withdrawn signed',
        'GET /events/e1/questions?sort=top signed',
        'POST /events/e1/questions/q1/approve signed',
        'POST /events/e1/questions/q1/withdraw signed',
        'POST /events/e1/questions/q1/report signed {"reason":"off topic"}',
        'POST /events/e1/questions/q1/report signed {}',
        'POST /events/e1/stage/m1/hide signed',
        'GET /events/e1/stage?after=2&limit=1 unsigned',
        'POST /events/e1/stage/m1/hide signed',
        'GET /events/e1/stage?after=6&limit=1 unsigned',
        'POST /events/e1/blocks signed {"agentId":"agent-b"}',
        'GET /directory/handles/bob signed',
        'DELETE /events/e1/blocks/agent-b signed',
        'GET /events/e1/blocks?limit=5 signed',
      ]);
    } finally {
      await gateway.close();
    }
  });

  it('joins, leaves and lists the waitlist, signed', async () => {
    const entry = {
      id: 'w1',
      eventId: 'e1',
      tierId: 'vip',
      agentId: 'agent-a',
      position: 3,
      status: 'waiting',
      offerExpiresAt: null,
      createdAt: '2027-03-04T19:00:00.000Z',
      updatedAt: '2027-03-04T19:00:00.000Z',
    };
    const offered = {
      ...entry,
      position: null,
      status: 'offered',
      offerExpiresAt: '2027-03-04T19:15:00.000Z',
    };
    const gateway = await fakeGateway((route) => {
      if (route === 'GET /me/waitlist') return { items: [entry, offered], nextCursor: 'c2' };
      if (route === 'DELETE /events/e1/waitlist') return { ...entry, position: null, status: 'left' };
      return entry;
    });
    try {
      await townhall(home, 'keygen');
      const run = (...argv: string[]) => townhall(home, '--url', gateway.url, ...argv);
      // The fake answers 200: the entry already in line.
      expect((await run('waitlist', 'join', 'e1', '--tier', 'vip')).stdout).toBe(
        'you are in line already: waitlist w1  waiting (#3)  tier vip  event e1\n' +
          'when a seat frees you get it: a free ticket at once, a paid seat offered to you for a while\n',
      );
      expect((await run('waitlist', 'join', 'e1')).code).toBe(0);
      expect((await run('waitlist', 'leave', 'e1')).stdout).toBe(
        'left: waitlist w1  left  tier vip  event e1\n',
      );
      expect((await run('waitlist', 'list', '--limit', '2')).stdout).toBe(
        [
          'ENTRY  STATUS                              TIER  SINCE                 EVENT',
          'w1     waiting (#3)                        vip   2027-03-04 19:00 UTC  e1',
          'w1     offered until 2027-03-04 19:15 UTC  vip   2027-03-04 19:00 UTC  e1',
          'more: --cursor c2',
          '',
        ].join('\n'),
      );
      expect(JSON.parse((await run('--json', 'waitlist', 'join', 'e1')).stdout)).toEqual({
        entry,
        created: false,
      });
      expect(gateway.seen).toEqual([
        'POST /events/e1/waitlist signed {"tierId":"vip"}',
        'POST /events/e1/waitlist signed {}',
        'DELETE /events/e1/waitlist signed',
        'GET /me/waitlist?limit=2 signed',
        'POST /events/e1/waitlist signed {}',
      ]);
      expect((await run('waitlist', 'list', '--limit', '0')).code).toBe(2);
    } finally {
      await gateway.close();
    }
  });

  it('invites agents to an event, lists and removes invites, signed; --access in the event', async () => {
    const invite = (agentId: string) => ({
      eventId: 'e1',
      agentId,
      invitedBy: 'host',
      invitedAt: '2027-03-04T19:05:00.000Z',
    });
    const gateway = await fakeGateway((route) => {
      if (route === 'GET /directory/handles/bob') return { agentId: 'agent-b', handle: 'bob' };
      if (route === 'POST /events/e1/invites')
        return { invites: [invite('agent-b'), invite('agent-c')], added: 1 };
      if (route === 'GET /events/e1/invites') return { items: [invite('agent-b')], nextCursor: 'c2' };
      if (route === 'DELETE /events/e1/invites/agent-b') return invite('agent-b');
      return { ...QUESTION, state: 'open' };
    });
    try {
      await townhall(home, 'keygen');
      const run = (...argv: string[]) => townhall(home, '--url', gateway.url, ...argv);
      expect((await run('invites', 'add', 'e1', '@bob', 'agent-c')).stdout).toBe(
        [
          '1 invited now, 1 invited before',
          'AGENT    INVITED BY  SINCE',
          'agent-b  host        2027-03-04 19:05 UTC',
          'agent-c  host        2027-03-04 19:05 UTC',
          '',
        ].join('\n'),
      );
      expect((await run('invites', 'list', 'e1', '--limit', '1')).stdout).toBe(
        [
          'AGENT    INVITED BY  SINCE',
          'agent-b  host        2027-03-04 19:05 UTC',
          'more: --cursor c2',
          '',
        ].join('\n'),
      );
      expect((await run('invites', 'remove', 'e1', 'agent-b')).stdout).toBe(
        'removed: agent-b invited to e1 by host (2027-03-04 19:05 UTC)\n',
      );
      // --json: printed as the gateway answered (this fake answers a question, not an event).
      expect((await run('--json', 'events', 'update', 'e1', '--access', 'invite')).code).toBe(0);
      expect(
        (
          await run(
            '--json',
            'events',
            'create',
            '--title',
            'AMA',
            '--starts-at',
            '2030-01-01T18:00:00Z',
            '--timezone',
            'UTC',
            '--access',
            'invite',
          )
        ).code,
      ).toBe(0);
      expect(gateway.seen).toEqual([
        'GET /directory/handles/bob signed',
        'POST /events/e1/invites signed {"agentIds":["agent-b","agent-c"]}',
        'GET /events/e1/invites?limit=1 signed',
        'DELETE /events/e1/invites/agent-b signed',
        'PATCH /events/e1 signed {"access":"invite"}',
        'POST /events signed {"title":"AMA","startsAt":"2030-01-01T18:00:00.000Z","endsAt":"2030-01-01T19:00:00.000Z","timezone":"UTC","capacity":100,"access":"invite"}',
      ]);
      const closed = await run('events', 'update', 'e1', '--access', 'closed');
      expect(closed.code).toBe(2);
      expect(closed.stderr).toContain('Allowed choices are open, approval, invite');
      expect((await run('invites', 'add', 'e1')).stderr).toContain("missing required argument 'agent'");
      const many = await run('invites', 'add', 'e1', ...Array.from({ length: 101 }, (_, n) => `agent-${n}`));
      expect(many).toMatchObject({ code: 2, stderr: 'error usage: at most 100 agents at once, not 101\n' });
      expect(gateway.seen).toHaveLength(6);
    } finally {
      await gateway.close();
    }
  });

  it('lists, approves and declines requests to come, signed; --access approval in the event', async () => {
    const request = (agentId: string, changes: Partial<AccessRequestView> = {}) =>
      anAccessRequestView({ agentId, ...changes });
    const decided = { decidedAt: '2027-03-04T19:10:00.000Z', decidedBy: 'host' };
    const approved = request('agent-b', {
      status: 'approved',
      tierId: 'vip',
      holdExpiresAt: '2027-03-04T19:25:00.000Z',
      ...decided,
    });
    const gateway = await fakeGateway((route) => {
      if (route === 'GET /directory/handles/bob') return { agentId: 'agent-b', handle: 'bob' };
      if (route === 'GET /events/e1/requests')
        return { items: [approved, request('agent-c')], nextCursor: 'c2' };
      if (route === 'POST /events/e1/requests/agent-b/approve') return approved;
      if (route === 'POST /events/e1/requests/agent-c/decline')
        return request('agent-c', { status: 'declined', ...decided });
      if (route === 'POST /events/e1/requests/agent-d/decline')
        return new Answer(409, {
          type: 'about:blank',
          title: 'This request was approved already: it cannot be declined',
          status: 409,
          detail: 'This request was approved already: it cannot be declined',
          code: 'request.approved',
          requestId: 'r1',
        });
      return { ...QUESTION, state: 'open' };
    });
    try {
      await townhall(home, 'keygen');
      const run = (...argv: string[]) => townhall(home, '--url', gateway.url, ...argv);
      expect((await run('requests', 'list', 'e1', '--status', 'requested', '--limit', '2')).stdout).toBe(
        [
          'AGENT    STATUS     TIER  ASKED                 DECIDED BY  SEAT HELD UNTIL',
          'agent-b  approved   vip   2027-03-04 19:05 UTC  host        2027-03-04 19:25 UTC',
          'agent-c  requested  -     2027-03-04 19:05 UTC  -           -',
          'more: --cursor c2',
          '',
        ].join('\n'),
      );
      expect((await run('requests', 'approve', 'e1', '@bob')).stdout).toBe(
        'agent-b asked to come to e1, tier vip (2027-03-04 19:05 UTC): approved by host (2027-03-04 19:10 UTC), seat held until 2027-03-04 19:25 UTC\n',
      );
      expect((await run('requests', 'decline', 'e1', 'agent-c')).stdout).toBe(
        'agent-c asked to come to e1 (2027-03-04 19:05 UTC): declined by host (2027-03-04 19:10 UTC)\n',
      );
      expect(JSON.parse((await run('--json', 'requests', 'approve', 'e1', 'agent-b')).stdout)).toEqual(
        approved,
      );
      // Townhall's refusal: its code, exit 1.
      expect(await run('requests', 'decline', 'e1', 'agent-d')).toMatchObject({
        code: 1,
        stderr: expect.stringContaining('request.approved'),
      });
      // --json: printed as the gateway answered (this fake answers a question, not an event).
      expect((await run('--json', 'events', 'update', 'e1', '--access', 'approval')).code).toBe(0);
      expect(
        (
          await run(
            '--json',
            'events',
            'create',
            '--title',
            'AMA',
            '--starts-at',
            '2030-01-01T18:00:00Z',
            '--timezone',
            'UTC',
            '--access',
            'approval',
          )
        ).code,
      ).toBe(0);
      expect(gateway.seen).toEqual([
        'GET /events/e1/requests?status=requested&limit=2 signed',
        'GET /directory/handles/bob signed',
        'POST /events/e1/requests/agent-b/approve signed',
        'POST /events/e1/requests/agent-c/decline signed',
        'POST /events/e1/requests/agent-b/approve signed',
        'POST /events/e1/requests/agent-d/decline signed',
        'PATCH /events/e1 signed {"access":"approval"}',
        'POST /events signed {"title":"AMA","startsAt":"2030-01-01T18:00:00.000Z","endsAt":"2030-01-01T19:00:00.000Z","timezone":"UTC","capacity":100,"access":"approval"}',
      ]);
      const maybe = await run('requests', 'list', 'e1', '--status', 'maybe');
      expect(maybe.code).toBe(2);
      expect(maybe.stderr).toContain('Allowed choices are requested, approved, declined');
      expect((await run('requests', 'approve', 'e1')).stderr).toContain("missing required argument 'agent'");
      expect(gateway.seen).toHaveLength(8);
    } finally {
      await gateway.close();
    }
  });

  it('rsvp prints the request an event that needs approval answers with, and that nothing was charged', async () => {
    const request = anAccessRequestView({ agentId: 'agent-a' });
    const approved = {
      ...request,
      status: 'approved',
      holdExpiresAt: '2027-03-04T19:25:00.000Z',
      decidedAt: '2027-03-04T19:10:00.000Z',
      decidedBy: 'host',
    };
    let answer: unknown = request;
    const gateway = await fakeGateway(() => new Answer(202, answer));
    try {
      await townhall(home, 'keygen');
      const run = (...argv: string[]) => townhall(home, '--url', gateway.url, ...argv);
      expect(await run('rsvp', 'e1')).toEqual({
        code: 0,
        stdout:
          "request sent: waiting for the host's approval (nothing was charged; rsvp again once approved)\n" +
          'agent-a asked to come to e1 (2027-03-04 19:05 UTC): not decided yet\n',
        stderr: '',
      });
      expect(JSON.parse((await run('--json', 'rsvp', 'e1')).stdout)).toEqual({ request });
      answer = approved;
      expect((await run('rsvp', 'e1')).stdout).toBe(
        'approved: rsvp again to pay until 2027-03-04 19:25 UTC (your seat is held until then)\n' +
          'agent-a asked to come to e1 (2027-03-04 19:05 UTC): approved by host (2027-03-04 19:10 UTC), seat held until 2027-03-04 19:25 UTC\n',
      );
      // Asked without paying: no payment header, no idempotency key.
      expect(gateway.seen).toEqual(Array.from({ length: 3 }, () => 'POST /events/e1/rsvp signed {}'));
      expect(gateway.idempotencyKeys).toEqual([]);
    } finally {
      await gateway.close();
    }
  });

  it('creates, lists and removes codes, signed; refuses a wrong code before any request; hidden tiers', async () => {
    const code = (changes: Partial<CodeView> = {}) =>
      aCodeView({ expiresAt: '2030-01-01T00:00:00.000Z', createdAt: '2027-03-04T19:05:00.000Z', ...changes });
    const crew = code({
      code: 'crew',
      percentOff: null,
      free: true,
      maxUses: null,
      uses: 3,
      tierIds: null,
      unlocksTierIds: ['backstage'],
      expiresAt: null,
    });
    const gateway = await fakeGateway((route) => {
      if (route === 'POST /events/e1/codes') return code();
      if (route === 'GET /events/e1/codes') return { items: [code({ uses: 2 }), crew], nextCursor: 'c2' };
      if (route === 'DELETE /events/e1/codes/spring25') return code({ uses: 2 });
      return { ...QUESTION, state: 'open' };
    });
    try {
      await townhall(home, 'keygen');
      const run = (...argv: string[]) => townhall(home, '--url', gateway.url, ...argv);
      expect(
        (
          await run(
            'codes',
            'create',
            'e1',
            'SPRING25',
            '--percent-off',
            '25',
            '--max-uses',
            '5',
            '--tiers',
            'general',
            '--expires',
            '2030-01-01T00:00:00Z',
          )
        ).stdout,
      ).toBe(
        'created: code SPRING25 for e1: 25% off, tiers general, 0/5 used, expires 2030-01-01 00:00 UTC\n',
      );
      expect((await run('codes', 'create', 'e1', 'crew', '--free', '--unlocks', 'backstage')).code).toBe(0);
      expect((await run('codes', 'create', 'e1', 'crew', '--unlocks', 'backstage,vip')).code).toBe(0);
      expect((await run('codes', 'create', 'e1', 'late', '--amount-off', '500')).code).toBe(0);
      expect((await run('codes', 'list', 'e1', '--limit', '2')).stdout).toBe(
        [
          'CODE      DISCOUNT  USES         TIERS    UNLOCKS    EXPIRES',
          'SPRING25  25% off   2/5          general  -          2030-01-01 00:00 UTC',
          'crew      free      3/unlimited  all      backstage  never',
          'more: --cursor c2',
          '',
        ].join('\n'),
      );
      expect((await run('codes', 'remove', 'e1', 'spring25')).stdout).toBe(
        'removed: code SPRING25 for e1: 25% off, tiers general, 2/5 used, expires 2030-01-01 00:00 UTC\n',
      );
      // A tier marked :hidden is sent hidden (this fake answers a question, not an event: --json).
      const tiers = ['--tier', 'std:Standard:1000:45', '--tier', 'backstage:Backstage:1:5:hidden'];
      expect((await run('--json', 'events', 'update', 'e1', ...tiers)).code).toBe(0);
      expect(gateway.seen).toEqual([
        'POST /events/e1/codes signed {"code":"SPRING25","percentOff":25,"maxUses":5,"tierIds":["general"],"expiresAt":"2030-01-01T00:00:00.000Z"}',
        'POST /events/e1/codes signed {"code":"crew","free":true,"unlocksTierIds":["backstage"]}',
        'POST /events/e1/codes signed {"code":"crew","unlocksTierIds":["backstage","vip"]}',
        'POST /events/e1/codes signed {"code":"late","amountOff":"500"}',
        'GET /events/e1/codes?limit=2 signed',
        'DELETE /events/e1/codes/spring25 signed',
        'PATCH /events/e1 signed {"ticketing":{"mode":"tiered","tiers":[{"id":"std","name":"Standard","price":"1000","capacity":45},{"id":"backstage","name":"Backstage","price":"1","capacity":5,"hidden":true}]}}',
      ]);
      // Refused before any request: a usage error, exit 2.
      for (const [argv, message] of [
        [['e1', 'x'], "value 'x' is invalid for argument 'code'. must be 3 to 32 letters"],
        [['e1', 'SPRING25'], 'a code gives a discount (--percent-off, --amount-off or --free) or unlocks'],
        [
          ['e1', 'SPRING25', '--free', '--percent-off', '10'],
          '--percent-off, --amount-off and --free exclude',
        ],
        [['e1', 'SPRING25', '--percent-off', '101'], 'must be between 1 and 100'],
        [['e1', 'SPRING25', '--free', '--tiers', 'VIP'], 'tier ids, comma separated'],
        [['e1', 'SPRING25', '--free', '--expires', 'soon'], 'must be now, +<duration>'],
      ] as const) {
        const refused = await run('codes', 'create', ...argv);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain(message);
      }
      expect(gateway.seen).toHaveLength(7);
    } finally {
      await gateway.close();
    }
  });

  it('rsvp --code sends the code with the RSVP and its payment, and pays the discounted price', async () => {
    const host = generateAgentKey();
    const offer = {
      scheme: 'exact',
      network: 'ledger:development',
      maxAmountRequired: '750',
      asset: 'USDC',
      payTo: host.agentId,
      resource: 'http://127.0.0.1/events/e1/rsvp?tier=general',
      description: 'Ticket (General admission) for event e1',
      mimeType: 'application/json',
      maxTimeoutSeconds: 300,
      extra: { eventId: 'e1', tierId: 'general' },
    };
    const ticket = {
      id: 't1',
      eventId: 'e1',
      tierId: 'general',
      holderId: 'agent-a',
      status: 'active',
      price: '750',
      asset: 'USDC',
      network: null,
      transaction: null,
      code: 'SPRING25',
      createdAt: '2027-03-04T19:05:00.000Z',
      cancelledAt: null,
    };
    let answered = 0;
    const gateway = await fakeGateway(() =>
      // The CLI asks, the SDK asks again, then pays.
      ++answered % 3 === 0
        ? new Answer(201, ticket)
        : new Answer(402, {
            type: 'about:blank',
            title: 'Payment required',
            status: 402,
            code: 'payment.required',
            detail: 'This event sells paid tickets',
            requestId: 'r1',
            x402Version: 1,
            accepts: [offer],
          }),
    );
    try {
      await townhall(home, 'keygen');
      const run = (...argv: string[]) => townhall(home, '--url', gateway.url, ...argv);
      // 800 is less than the list price, and more than what the code makes it cost.
      expect(await run('rsvp', 'e1', '--code', 'SPRING25', '--max-price', '800')).toEqual({
        code: 0,
        stdout: 'ticket t1  active  tier general  0.00075 USDC (750)  event e1  code SPRING25\n',
        stderr: '',
      });
      expect(gateway.seen.map((line) => line.replace(/^POST \/events\/e1\/rsvp signed /, ''))).toEqual([
        '{"code":"SPRING25"}',
        '{"tierId":"general","code":"SPRING25"}',
        '{"tierId":"general","code":"SPRING25"}',
      ]);
      answered = 0;
      const above = await run('rsvp', 'e1', '--code', 'SPRING25', '--max-price', '700');
      expect(above.code).toBe(1);
      expect(above.stderr).toContain(
        'error payment.above_max_price: a ticket in tier general costs 0.00075 USDC (750), more than --max-price 700',
      );
      answered = 0;
      const unpriced = await run('rsvp', 'e1', '--code', 'SPRING25');
      expect(unpriced.stderr).toContain(
        'a ticket (tier general) costs 0.00075 USDC (750) with code SPRING25; pass --max-price 750 to pay it',
      );
      expect(await run('rsvp', 'e1', '--code', 'no')).toMatchObject({ code: 2 });
      expect(gateway.seen).toHaveLength(5);
    } finally {
      await gateway.close();
    }
  });

  it('lists series without a key, by host and words, with the next page to ask for', async () => {
    const series = {
      ...officeHours('FREQ=WEEKLY;COUNT=3'),
      followerCount: 2,
      upcoming: [{ eventId: 'e1', startsAt: '2027-03-04T19:00:00.000Z', status: 'scheduled' }],
      createdAt: '2027-01-01T00:00:00.000Z',
      updatedAt: '2027-01-01T00:00:00.000Z',
    };
    const gateway = await fakeGateway(() => ({ items: [series], nextCursor: 'c2' }));
    try {
      const run = (...argv: string[]) => townhall(home, '--url', gateway.url, ...argv);
      expect(
        (await run('series', 'list', '--host', 'host-a', '-q', 'office hours', '--limit', '1')).stdout,
      ).toBe(
        [
          'ID  NEXT                  RULE                 PRICE  FOLLOWERS  TITLE',
          's1  2027-03-04 19:00 UTC  FREQ=WEEKLY;COUNT=3  free   2          Office hours',
          'more: --cursor c2',
          '',
        ].join('\n'),
      );
      expect((await run('series', 'list', '--cursor', 'c2')).code).toBe(0);
      expect(gateway.seen).toEqual([
        'GET /events/series?hostId=host-a&q=office+hours&limit=1 unsigned',
        'GET /events/series?cursor=c2 unsigned',
      ]);
      expect((await run('series', 'list', '--limit', '101')).code).toBe(2);
    } finally {
      await gateway.close();
    }
  });

  it('ends a series with the key: one signed POST, the series shown ended', async () => {
    const ended = {
      ...officeHours('FREQ=WEEKLY'),
      followerCount: 0,
      upcoming: [],
      endedAt: '2027-02-01T10:00:00.000Z',
      createdAt: '2027-01-01T00:00:00.000Z',
      updatedAt: '2027-02-01T10:00:00.000Z',
    };
    const gateway = await fakeGateway(() => ended);
    try {
      await townhall(home, 'keygen');
      const out = (await townhall(home, '--url', gateway.url, 'series', 'end', 's1')).stdout;
      expect(out.split('\n')[0]).toBe('ended "Office hours"');
      expect(out).toMatch(/ended\s+2027-02-01 10:00 UTC/);
      expect(gateway.seen).toEqual(['POST /events/series/s1/end signed']);
    } finally {
      await gateway.close();
    }
  });

  it('sends --idempotency-key on signed writes only, and --offer-minutes in the event', async () => {
    const gateway = await fakeGateway((route) =>
      route.startsWith('GET ')
        ? { items: [{ ...QUESTION, state: 'open' }], nextCursor: null }
        : { ...QUESTION, state: 'open' },
    );
    try {
      await townhall(home, 'keygen');
      const run = (...argv: string[]) => townhall(home, '--url', gateway.url, ...argv);
      expect((await run('--idempotency-key', 'retry-7', 'questions', 'report', 'e1', 'q1')).code).toBe(0);
      expect((await run('--idempotency-key', 'retry-7', 'questions', 'list', 'e1')).code).toBe(0);
      expect(gateway.idempotencyKeys).toEqual(['POST /events/e1/questions/q1/report retry-7']);
      // --json: printed as the gateway answered (this fake answers a question, not an event).
      const update = await run('--json', 'events', 'update', 'e1', '--offer-minutes', '30');
      expect(update.code).toBe(0);
      expect(gateway.seen.at(-1)).toBe('PATCH /events/e1 signed {"offerMinutes":30}');
      expect((await run('events', 'update', 'e1', '--offer-minutes', '0')).code).toBe(2);
      expect((await run('events', 'update', 'e1', '--offer-minutes', '1441')).code).toBe(2);
    } finally {
      await gateway.close();
    }
  });

  it('refuses a question state, a moderation mode or a report threshold it does not know', async () => {
    const state = await townhall(home, 'questions', 'list', 'e1', '--state', 'hidden');
    expect(state.code).toBe(2);
    expect(state.stderr).toContain(
      'Allowed choices are pending, open, promoted, answered, dismissed, withdrawn',
    );
    expect((await townhall(home, 'events', 'update', 'e1', '--moderation', 'strict')).code).toBe(2);
    const threshold = await townhall(home, 'events', 'update', 'e1', '--report-threshold', '0');
    expect(threshold.code).toBe(2);
    expect(threshold.stderr).toContain('must be between 1 and 100');
  });

  it('says when nothing answers at the URL', async () => {
    const port = await closedPort();
    const result = await townhall(home, '--url', `http://127.0.0.1:${port}`, 'events', 'list');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error network.unreachable: nothing answers at http://127.0.0.1:${port}`);
  });
});
