import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInMemory } from '../../test/in-memory-cli.js';

const WEBHOOK = {
  id: '5b0f4a8e-7c1d-4d55-9e43-7f2d8f1f5a10',
  url: 'https://hooks.example.com/townhall',
  types: ['townhall.ticket.*', 'townhall.event.started'],
  eventId: null,
  createdAt: '2027-03-04T19:00:00.000Z',
};
const ATTEMPT = {
  webhookId: '0b9a2f55-3c1e-4d7a-9a55-0f3f4f6c2a10',
  type: 'townhall.ticket.issued',
  attempt: 2,
  attemptedAt: '2027-03-04T19:00:05.000Z',
  status: 500,
  durationMs: 12,
  error: 'HTTP 500',
  outcome: 'retrying',
};
const KEY = { keyId: '0123456789abcdef', publicKey: 'whpk_AAAA', algorithm: 'ed25519' };

describe('townhall webhooks', () => {
  let home: string;
  let server: Server;
  let url: string;
  const seen: string[] = [];

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'townhall-cli-webhooks-'));
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        const signed = request.headers.authorization !== undefined ? 'signed' : 'unsigned';
        seen.push([request.method, request.url, signed, ...(body ? [body] : [])].join(' '));
        const route = `${request.method} ${request.url}`;
        const reply =
          route === 'GET /webhooks'
            ? { items: [WEBHOOK], nextCursor: null }
            : route.endsWith('/deliveries')
              ? { items: [ATTEMPT], nextCursor: null }
              : route === 'GET /.well-known/townhall/webhook-key'
                ? KEY
                : WEBHOOK;
        response.writeHead(request.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(reply));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(home, { recursive: true, force: true });
  });

  const townhall = (...argv: string[]) => runInMemory(['--url', url, ...argv], { home });

  it('creates, lists, deletes and shows deliveries, signed; the key without one', async () => {
    expect((await townhall('keygen')).code).toBe(0);
    const created = await townhall(
      'webhooks',
      'create',
      'https://hooks.example.com/townhall',
      '--type',
      'townhall.ticket.*',
      '--type',
      'townhall.event.started',
    );
    expect(created.stdout).toContain(
      `subscribed ${WEBHOOK.id}  https://hooks.example.com/townhall  townhall.ticket.*,townhall.event.started`,
    );
    expect((await townhall('webhooks', 'list')).stdout).toBe(
      [
        'ID                                    EVENT       TYPES                                     URL',
        `${WEBHOOK.id}  all events  townhall.ticket.*,townhall.event.started  https://hooks.example.com/townhall`,
        '',
      ].join('\n'),
    );
    expect((await townhall('webhooks', 'deliveries', WEBHOOK.id)).stdout).toContain(
      '2027-03-04T19:00:05.000Z  townhall.ticket.issued  2    500     12 ms  retrying  HTTP 500',
    );
    expect((await townhall('webhooks', 'delete', WEBHOOK.id)).stdout).toContain(`deleted ${WEBHOOK.id}`);
    expect((await townhall('webhooks', 'key')).stdout).toBe('whpk_AAAA  (ed25519, keyId 0123456789abcdef)\n');
    expect(JSON.parse((await townhall('--json', 'webhooks', 'key')).stdout)).toEqual(KEY);
    const event = '11111111-2222-4333-8444-555555555555';
    await townhall(
      'webhooks',
      'create',
      'https://x.example/',
      '--type',
      'townhall.event.*',
      '--event',
      event,
    );
    expect(seen).toEqual([
      'POST /webhooks signed {"url":"https://hooks.example.com/townhall","types":["townhall.ticket.*","townhall.event.started"]}',
      'GET /webhooks signed',
      `GET /webhooks/${WEBHOOK.id}/deliveries signed`,
      `DELETE /webhooks/${WEBHOOK.id} signed`,
      'GET /.well-known/townhall/webhook-key unsigned',
      'GET /.well-known/townhall/webhook-key unsigned',
      `POST /webhooks signed {"url":"https://x.example/","types":["townhall.event.*"],"eventId":"${event}"}`,
    ]);
    // --type is required.
    expect((await townhall('webhooks', 'create', 'https://x.example/')).code).toBe(2);
  });
});
