import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventView, PollView, QuestionView, TicketView } from '@townhall/contracts';
import { compileCacheEnv, REPO_ROOT, Topology, waitFor } from '@townhall/testing';

const CLI = 'apps/cli/dist/main.js';
// util-linux `script` gives a command a pseudo-terminal: the only way to test a prompt for real.
const SCRIPT = '/usr/bin/script';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

type Words = [TemplateStringsArray, ...Array<string | number>];

/**
 * A command line from a template: the literal text splits on whitespace, each interpolated value
 * stays one argument (`events create --title ${'Two words'}`).
 */
function argv(strings: TemplateStringsArray, ...values: Array<string | number>): string[] {
  const args: string[] = [];
  let word: string | undefined;
  strings.forEach((literal, index) => {
    for (const part of literal.split(/(\s+)/)) {
      if (part === '') continue;
      if (/^\s+$/.test(part)) {
        if (word !== undefined) args.push(word);
        word = undefined;
      } else word = (word ?? '') + part;
    }
    if (index < values.length) word = (word ?? '') + String(values[index]);
  });
  if (word !== undefined) args.push(word);
  return args;
}

/**
 * The CLI through real processes (`node apps/cli/dist/main.js`), as a user runs it: a private HOME
 * under /tmp, the topology's URL in TOWNHALL_URL, no terminal on stdin.
 */
describe('townhall CLI, end to end against the real topology', () => {
  let topology: Topology;
  let home: string;
  const children: ChildProcess[] = [];

  function start(command: string, args: string[], stdin: 'ignore' | 'pipe' = 'ignore'): ChildProcess {
    const child = spawn(command, args, {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env['PATH'] ?? '',
        ...compileCacheEnv(),
        HOME: home,
        TOWNHALL_URL: topology.baseUrl,
      },
      stdio: [stdin, 'pipe', 'pipe'],
    });
    children.push(child);
    return child;
  }

  /** Runs to the end; `onOutput` sees stdout as it grows (e.g. to answer a prompt). */
  function finish(child: ChildProcess, onOutput?: (stdout: string) => void): Promise<Run> {
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      onOutput?.(stdout);
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  const townhall = (args: string[]) => finish(start(process.execPath, [CLI, ...args]));

  /** The topology's origin with another host name: the same server, another audience. */
  const audienceOf = (hostname: string) => {
    const url = new URL(topology.baseUrl);
    url.hostname = hostname;
    return url.origin;
  };

  /**
   * Runs commands as one agent: its key is `<home>/<name>.json`, except the host's, which is the
   * default `~/.townhall/key.json`. `agent\`...\`` gives the run, `agent.json\`...\`` the parsed
   * --json result of a command that must succeed.
   */
  function agent(name: string) {
    const key = name === 'host' ? [] : ['--key', join(home, `${name}.json`)];
    const run = (...words: Words) => townhall([...key, ...argv(...words)]);
    const json = async <T = unknown>(...words: Words): Promise<T> => {
      const result = await townhall(['--json', ...key, ...argv(...words)]);
      if (result.code !== 0) throw new Error(`townhall ${argv(...words).join(' ')}: ${result.stderr}`);
      return JSON.parse(result.stdout) as T;
    };
    /** On a pseudo-terminal, answering its yes/no prompt; stdout and stderr come merged. */
    const onTerminal =
      (answer: string) =>
      (...words: Words) => {
        const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
        const line = [process.execPath, CLI, ...key, ...argv(...words)].map(quote).join(' ');
        const child = start(SCRIPT, ['-qec', line, '/dev/null'], 'pipe');
        let answered = false;
        return finish(child, (stdout) => {
          if (answered || !stdout.includes('[y/N]')) return;
          answered = true;
          child.stdin!.write(`${answer}\n`);
        });
      };
    return Object.assign(run, { json, onTerminal });
  }

  let host: ReturnType<typeof agent>;
  let speaker: ReturnType<typeof agent>;
  let alice: ReturnType<typeof agent>;
  let bob: ReturnType<typeof agent>;
  const ids: Record<string, string> = {};
  let freeEvent: EventView;
  let paidEvent: EventView;
  let question: QuestionView;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'townhall-cli-e2e-'));
    topology = await Topology.start({ env: { LEDGER_FAUCET: 'true' } });
    [host, speaker, alice, bob] = ['host', 'speaker', 'alice', 'bob'].map(agent) as [
      typeof host,
      typeof host,
      typeof host,
      typeof host,
    ];
  });
  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await topology?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('keygen writes a 0600 key in a 0700 directory, whoami prints its bare agentId, a 0644 key is refused', async () => {
    const made = await host`keygen`;
    expect(made).toMatchObject({ code: 0, stderr: '' });
    const keyFile = join(home, '.townhall', 'key.json');
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, '.townhall'))).mode & 0o777).toBe(0o700);

    const leaky = join(home, 'leaky.json');
    await copyFile(keyFile, leaky);
    await chmod(leaky, 0o644);
    const [whoami, details, others, refused] = await Promise.all([
      host`whoami`,
      host.json<{ agentId: string; keyFile: string }>`whoami`,
      Promise.all([speaker, alice, bob].map((someone) => someone.json<{ agentId: string }>`keygen`)),
      townhall(['--key', leaky, 'whoami']),
    ]);
    // The agentId and a newline, nothing else: `$(townhall whoami)` is the agentId.
    expect(whoami).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\w{40,50}\n$/), stderr: '' });
    ids['host'] = whoami.stdout.trimEnd();
    expect(made.stdout).toContain(`created agent ${ids['host']}`);
    expect(details).toEqual({ agentId: ids['host'], keyFile });
    ['speaker', 'alice', 'bob'].forEach((name, index) => (ids[name] = others[index]!.agentId));

    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toContain(`error key.too_open: permissions 0644 for ${leaky} are too open`);
  });

  it('directory set and get, by agentId and by @handle', async () => {
    const handle = `cli_host_${Date.now().toString(36)}`;
    const set =
      await host`directory set --handle ${handle} --name ${'CLI Host'} --link home=https://h.example`;
    expect(set).toMatchObject({ code: 0, stdout: expect.stringContaining(`@${handle} (CLI Host)`) });
    const [byId, byHandle] = await Promise.all([
      alice`directory get ${ids['host']!}`,
      bob.json`directory get @${handle}`,
    ]);
    expect(byId.stdout).toMatch(new RegExp(`^@${handle} \\(CLI Host\\)\\n {2}agentId {2}${ids['host']}`));
    expect(byHandle).toMatchObject({
      agentId: ids['host'],
      handle,
      links: [{ label: 'home', url: 'https://h.example' }],
    });
  });

  it('events create, list, get, update and start; errors print the problem code (or its JSON) and exit 1', async () => {
    [freeEvent, paidEvent] = await Promise.all([
      host.json<EventView>`events create --title ${'CLI free AMA'} --starts-at +1h --duration 45m --timezone UTC --speaker ${ids['speaker']!}`,
      host.json<EventView>`events create --title ${'CLI paid AMA'} --starts-at +2h --price 300 --capacity 10`,
    ]);
    expect(freeEvent).toMatchObject({
      hostId: ids['host'],
      status: 'scheduled',
      speakers: [ids['speaker']],
      ticketing: { mode: 'free' },
    });
    expect(Date.parse(freeEvent.endsAt) - Date.parse(freeEvent.startsAt)).toBe(45 * 60_000);
    expect(paidEvent.ticketing).toEqual({ mode: 'single', price: '300', asset: 'USDC' });

    const [listed, table, shown, forbidden, invalid, unknown, unknownJson, wrongAudience, wrongAudienceJson] =
      await Promise.all([
        host.json<{ items: EventView[] }>`events list --host me`,
        bob`events list --status scheduled`,
        bob`events get ${freeEvent.id}`,
        bob`events start ${freeEvent.id}`,
        host`events create --title Backwards --starts-at +2h --ends-at +1h`,
        bob`events get no-such-event`,
        bob`--json events get ${randomUUID()}`,
        // Signed for another origin than the server's PUBLIC_BASE_URL (the topology's baseUrl).
        alice`--audience ${audienceOf('localhost')} ledger balance`,
        alice`ledger balance --json --audience ${audienceOf('localhost')}`,
      ]);
    expect(listed.items.map((event) => event.id)).toEqual([freeEvent.id, paidEvent.id]);
    expect(table.stdout).toMatch(/^ID\s+STATUS\s+STARTS\s+PRICE\s+SOLD\s+TITLE$/m);
    expect(table.stdout).toMatch(
      new RegExp(`^${paidEvent.id}\\s+scheduled\\s+.*0\\.0003 USDC\\s+0/10\\s+CLI paid AMA$`, 'm'),
    );
    expect(shown.stdout).toMatch(/^CLI free AMA\n\s+id\s+/);
    expect(forbidden).toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(/^error role\.forbidden: /),
    });
    // The field error the detail already says is printed once.
    expect(invalid).toMatchObject({
      code: 1,
      stderr: 'error validation.failed: endsAt: must be after startsAt\n',
    });
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error event\.not_found: /) });
    expect(unknownJson).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(unknownJson.stderr)).toMatchObject({
      status: 404,
      code: 'event.not_found',
      requestId: expect.any(String),
    });

    const server = topology.baseUrl;
    expect(wrongAudience).toMatchObject({ code: 1, stdout: '' });
    expect(wrongAudience.stderr).toBe(
      [
        'error auth.signature_invalid: signature does not match the signing string',
        `  signed for the audience ${audienceOf('localhost')} (--audience), but the server's audience (its PUBLIC_BASE_URL) is ${server}`,
        `  sign for it with: --audience ${server} (or TOWNHALL_AUDIENCE=${server})`,
        '',
      ].join('\n'),
    );
    expect(wrongAudienceJson.code).toBe(1);
    expect(JSON.parse(wrongAudienceJson.stderr)).toMatchObject({
      status: 401,
      code: 'auth.signature_invalid',
      hint: expect.stringContaining(`--audience ${server}`),
    });

    // Only what is given is sent: the title and the start stay, the end follows --duration.
    const [updated, started] = await Promise.all([
      host.json<EventView>`events update ${paidEvent.id} --description ${'Now with slides'} --duration 90m --capacity 12`,
      host`events start ${freeEvent.id}`,
    ]);
    expect(updated).toMatchObject({
      id: paidEvent.id,
      title: 'CLI paid AMA',
      description: 'Now with slides',
      startsAt: paidEvent.startsAt,
      endsAt: new Date(Date.parse(paidEvent.startsAt) + 90 * 60_000).toISOString(),
      capacity: 12,
      ticketing: paidEvent.ticketing,
    });
    expect(started).toMatchObject({ code: 0, stdout: `${freeEvent.id}  live  "CLI free AMA"\n` });
  });

  it('rsvp: a free ticket at once; a paid one only within --max-price; the faucet and the balance', async () => {
    const [aliceFree, bobFree, faucet] = await Promise.all([
      alice`rsvp ${freeEvent.id}`,
      bob`rsvp ${freeEvent.id}`,
      bob`ledger faucet 1000`,
    ]);
    for (const run of [aliceFree, bobFree])
      expect(run).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(/^ticket \S+ {2}active {2}tier general {2}free/),
      });
    expect(faucet.stdout).toMatch(/^credited 0\.001 USDC \(1000\)/);

    const [unpaid, tooDear] = await Promise.all([
      bob`rsvp ${paidEvent.id}`,
      bob`rsvp ${paidEvent.id} --max-price 299`,
    ]);
    expect(unpaid).toMatchObject({
      code: 1,
      stderr:
        'error payment.required: a ticket (tier general) costs 0.0003 USDC (300); pass --max-price 300 to pay it\n',
    });
    expect(tooDear.code).toBe(1);
    expect(tooDear.stderr).toMatch(
      /^error payment\.above_max_price: .*costs 0\.0003 USDC \(300\), more than --max-price 299; nothing was paid/,
    );
    expect(await bob.json`ledger balance`).toMatchObject({ balances: [{ asset: 'USDC', amount: '1000' }] });

    const paid = await bob.json<{
      ticket: { price: string; holderId: string };
      created: boolean;
      payment: { transaction: string };
    }>`rsvp ${paidEvent.id} --max-price 500`;
    expect(paid).toMatchObject({
      created: true,
      ticket: { price: '300', holderId: ids['bob'] },
      payment: { transaction: expect.any(String) },
    });
    const [balance, entries, again, mine, attendees, notHost] = await Promise.all([
      bob`ledger balance`,
      bob`ledger list`,
      bob`rsvp ${paidEvent.id} --max-price 300`,
      bob`tickets mine`,
      host.json<{ items: TicketView[] }>`tickets attendees ${paidEvent.id}`,
      bob`tickets attendees ${paidEvent.id}`,
    ]);
    expect(mine.stdout).toMatch(/^TICKET\s+STATUS\s+TIER\s+PRICE\s+SINCE\s+EVENT$/m);
    expect(mine.stdout).toMatch(
      new RegExp(`^\\S+\\s+active\\s+general\\s+free\\s+.*UTC\\s+${freeEvent.id}$`, 'm'),
    );
    expect(mine.stdout).toMatch(
      new RegExp(`^\\S+\\s+active\\s+general\\s+0\\.0003 USDC\\s+.*UTC\\s+${paidEvent.id}$`, 'm'),
    );
    expect(attendees.items).toEqual([
      expect.objectContaining({
        eventId: paidEvent.id,
        holderId: ids['bob'],
        price: '300',
        status: 'active',
      }),
    ]);
    expect(notHost).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error role\.forbidden: /) });
    expect(balance.stdout).toBe('0.0007 USDC (700)\n');
    expect(entries.stdout).toMatch(/FAUCET\s+\+0\.001 USDC/);
    expect(entries.stdout).toMatch(
      new RegExp(`EVENT_TICKET\\s+-0\\.0003 USDC\\s+event ${paidEvent.id}\\s+${paid.payment.transaction}`),
    );
    expect(again.stdout).toMatch(/^you already hold this ticket; nothing was charged/);
  });

  (existsSync(SCRIPT) ? it : it.skip)(
    'rsvp on a terminal shows the price and pays only once confirmed',
    async () => {
      await alice`ledger faucet 500`;
      const declined = await alice.onTerminal('n')`rsvp ${paidEvent.id}`;
      expect(declined.stdout).toContain(
        '"CLI paid AMA": a ticket (tier general) costs 0.0003 USDC (300), paid to the host',
      );
      expect(declined.stdout).toContain('error payment.declined: nothing was paid');
      expect(declined.code).toBe(1);

      const confirmed = await alice.onTerminal('y')`rsvp ${paidEvent.id}`;
      expect(confirmed.stdout).toMatch(/paid 0\.0003 USDC \(300\) \(ledger entry \S+\)/);
      expect(confirmed.code).toBe(0);
      expect((await alice`ledger balance`).stdout).toBe('0.0002 USDC (200)\n');
    },
  );

  it('questions ask, upvote and list', async () => {
    question = await alice.json<QuestionView>`questions ask ${freeEvent.id} What is next?`;
    expect(question).toMatchObject({
      body: 'What is next?',
      authorId: ids['alice'],
      upvotes: 0,
      state: 'open',
    });
    const [upvoted, own] = await Promise.all([
      bob`questions upvote ${freeEvent.id} ${question.id}`,
      alice`questions upvote ${freeEvent.id} ${question.id}`,
    ]);
    expect(upvoted.stdout).toContain('open  1 upvote  "What is next?"');
    expect(own).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error question\.own_upvote: /) });
    const [list, newest] = await Promise.all([
      bob`questions list ${freeEvent.id}`,
      bob.json<{ items: QuestionView[] }>`questions list ${freeEvent.id} --sort new`,
    ]);
    expect(list.stdout).toMatch(new RegExp(`^${question.id}\\s+open\\s+1\\s+What is next\\?$`, 'm'));
    expect(newest.items).toEqual([expect.objectContaining({ id: question.id, upvotes: 1 })]);
  });

  it('stage post, and stage tail printing what happens meanwhile until Ctrl-C', async () => {
    const tail = start(process.execPath, [CLI, 'stage', 'tail', freeEvent.id]);
    let err = '';
    tail.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    let out = '';
    const ended = finish(tail, (stdout) => (out = stdout));
    await waitFor('the tail to connect', async () =>
      err.includes(`following ${freeEvent.id} live`) ? true : undefined,
    );

    const posted = await speaker`stage post ${freeEvent.id} Hello from the CLI`;
    expect(posted.stdout).toMatch(
      new RegExp(`^#1 \\d\\d:\\d\\d:\\d\\d ${ids['speaker']}: Hello from the CLI\\n$`),
    );
    await host`questions promote ${freeEvent.id} ${question.id}`;
    await waitFor('the tail to print both', async () =>
      out.includes('[question] What is next?') ? true : undefined,
    );
    expect(out).toMatch(new RegExp(`^#1 \\d\\d:\\d\\d:\\d\\d ${ids['speaker']}: Hello from the CLI$`, 'm'));
    expect(out).toMatch(/^#2 .*: \[question\] What is next\?$/m);

    tail.kill('SIGINT');
    expect((await ended).code).toBe(0);
  });

  it('polls open, vote (by label or number) and close', async () => {
    const poll = await speaker.json<PollView>`polls open ${freeEvent.id} ${'Tabs or spaces?'} Tabs Spaces`;
    expect(poll.options.map((option) => option.label)).toEqual(['Tabs', 'Spaces']);
    const votes = await Promise.all([
      alice`polls vote ${freeEvent.id} ${poll.id} spaces`,
      bob`polls vote ${freeEvent.id} ${poll.id} 2`,
    ]);
    expect(votes.map((vote) => vote.code)).toEqual([0, 0]);
    const [again, wrong] = await Promise.all([
      bob`polls vote ${freeEvent.id} ${poll.id} Tabs`,
      alice`polls vote ${freeEvent.id} ${poll.id} emacs`,
    ]);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error poll\.already_voted: /) });
    expect(wrong).toMatchObject({ code: 2, stderr: expect.stringContaining('1. Tabs, 2. Spaces') });
    const closed = await speaker`polls close ${freeEvent.id} ${poll.id}`;
    expect(closed.stdout).toMatch(
      /^poll \S+ {2}closed {2}"Tabs or spaces\?" \(single choice, 2 ballots\)\n.*Tabs\s+0 votes.*\n.*Spaces\s+2 votes/,
    );
  });

  it('sign prints headers that the gateway accepts, once', async () => {
    const body = JSON.stringify({ handle: `signed_${Date.now().toString(36)}` });
    const [signed, lines] = await Promise.all([
      alice.json<{
        method: string;
        url: string;
        headers: Record<string, string>;
        body: string;
      }>`sign PUT /directory/me ${body}`,
      bob`sign GET /ledger/balance`,
    ]);
    expect(signed.url).toBe(`${topology.baseUrl}/directory/me`);
    const send = () =>
      fetch(signed.url, { method: signed.method, headers: signed.headers, body: signed.body });
    const first = await send();
    expect(first.status).toBe(201);
    expect(await first.json()).toMatchObject({ agentId: ids['alice'] });
    const replay = await send();
    expect(replay.status).toBe(401);
    expect(await replay.json()).toMatchObject({ code: 'auth.nonce_replayed' });

    // The -H lines, as a person pastes them after `curl <url>`.
    const headers = Object.fromEntries(
      [...lines.stdout.matchAll(/^-H '([^:]+): (.*)'(?: \\)?$/gm)].map((match) => [match[1]!, match[2]!]),
    );
    expect(Object.keys(headers)).toEqual(['authorization', 'x-nonce']);
    const balance = await fetch(`${topology.baseUrl}/ledger/balance`, { headers });
    expect(balance.status).toBe(200);
    expect(await balance.json()).toMatchObject({ agentId: ids['bob'], balances: [{ amount: '700' }] });
  });

  it('demo runs a whole paid AMA and exits 0', async () => {
    const demo = await townhall(['demo']);
    if (demo.code !== 0) throw new Error(`demo exited ${demo.code}:\n${demo.stdout}\n${demo.stderr}`);
    const lines = demo.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`Townhall answers at ${topology.baseUrl}`);
    expect(lines.at(-1)).toMatch(/^done: townhall events get \S+/);
    expect(demo.stdout).toMatch(/: 0\.0025 USDC a ticket, \d+ seats$/m);
    expect(demo.stdout).toMatch(/got 402 Payment Required \(0\.0025 USDC\), signed an x402 payment/);
    expect(demo.stdout).toMatch(/promoted the top question \(2 upvotes\)/);
    expect(demo.stdout).toMatch(/closed the poll: Standalone mode 2, More SDKs 1, Better docs 0/);
    expect(demo.stdout).toMatch(/published the recording/);
    expect(demo.stdout).toMatch(/ledger balance: 0\.0075 USDC from 3 tickets/);
    expect(demo.stderr).toBe('');
  });
});
