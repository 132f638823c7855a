import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fullReport } from '../../test/report-fixtures.js';
import { runInMemory } from '../../test/in-memory-cli.js';

const CSV =
  'agentId,handle,tier,code,paid,refunded,minutesPresent,questionsAsked,votesCast\r\nA,ada,vip,,4000,0,42.5,1,1\r\n';
const REPORT = fullReport();

/**
 * A gateway stand-in: the report, the CSV and the event (its title), each request recorded as
 * `METHOD /path signed|unsigned accept`. A report of event `forbidden` is refused.
 */
async function fakeGateway() {
  const seen: string[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const signed = request.headers.authorization !== undefined;
    seen.push(`${request.method} ${request.url} ${signed ? 'signed' : 'unsigned'} ${request.headers.accept}`);
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'content-type': type });
      response.end(body);
    };
    if (request.url?.startsWith('/events/forbidden/'))
      return send(
        403,
        'application/problem+json',
        JSON.stringify({
          type: 'about:blank',
          title: 'Your role in this event does not allow this',
          status: 403,
          detail: 'Only the host may read the CSV',
          code: 'role.forbidden',
          requestId: 'r1',
        }),
      );
    if (request.url === '/events/e1/report') return send(200, 'application/json', JSON.stringify(REPORT));
    if (request.url === '/events/e1/report.csv') return send(200, 'text/csv; charset=utf-8', CSV);
    if (request.url === '/events/e1')
      return send(200, 'application/json', JSON.stringify({ title: 'Numbers <3' }));
    return send(404, 'application/problem+json', JSON.stringify({ code: 'event.not_found', status: 404 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('townhall report', () => {
  let home: string;
  let gateway: Awaited<ReturnType<typeof fakeGateway>>;

  /** Runs one command line against the fake gateway: its exit code and what it printed. */
  const townhall = (...argv: string[]) => runInMemory(['--url', gateway.url, ...argv], { home });

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'townhall-report-'));
    gateway = await fakeGateway();
    expect((await townhall('keygen')).code).toBe(0);
  });
  afterEach(async () => {
    await gateway.close();
    await rm(home, { recursive: true, force: true });
  });

  it('prints the report with its charts, the title read from the event', async () => {
    const { code, stdout } = await townhall('report', 'e1');
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toBe('"Numbers <3" e1: past, report of 2027-03-04 20:00 UTC');
    expect(stdout).toContain('registrations over time (12 points,');
    expect(stdout).toContain('tickets by tier');
    expect(stdout).toMatch(/Yes +█+ +2 {2}67%/);
    expect(gateway.seen.sort()).toEqual([
      'GET /events/e1 unsigned application/json',
      'GET /events/e1/report signed application/json',
    ]);
  });

  it('--json prints the raw report, and nothing else is asked', async () => {
    const { code, stdout } = await townhall('--json', 'report', 'e1');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(REPORT);
    expect(gateway.seen).toEqual(['GET /events/e1/report signed application/json']);
  });

  it('--csv prints the CSV as it came', async () => {
    const { code, stdout } = await townhall('report', 'e1', '--csv');
    expect(code).toBe(0);
    expect(stdout).toBe(CSV);
    expect(gateway.seen).toEqual(['GET /events/e1/report.csv signed text/csv']);
  });

  it('--html writes one page, escaped, and says where', async () => {
    const file = join(home, 'report.html');
    const { code, stdout } = await townhall('report', 'e1', '--html', file);
    expect(code).toBe(0);
    expect(stdout).toBe(`wrote ${file}\n`);
    const html = await readFile(file, 'utf8');
    expect(html).toContain('<h1>Numbers &lt;3</h1>');
    expect(html).toContain('<svg class="chart registrations"');
    expect(html).not.toContain('<script>');
    const json = await townhall('--json', 'report', 'e1', '--html', file);
    expect(JSON.parse(json.stdout)).toEqual({ file, bytes: Buffer.byteLength(html) });
  });

  it('prints a refusal with its code, exit 1', async () => {
    const refused = await townhall('report', 'forbidden', '--csv');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error role\.forbidden: Only the host may read the CSV/);
  });

  it('refuses options that exclude each other before any request, exit 2', async () => {
    const both = await townhall('report', 'e1', '--csv', '--html', join(home, 'x.html'));
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--csv and --html exclude each other');
    const json = await townhall('--json', 'report', 'e1', '--csv');
    expect(json.code).toBe(2);
    expect(gateway.seen).toEqual([]);
  });
});
