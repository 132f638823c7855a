import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateAgentKey } from '@townhall/sdk';
import { runInMemory } from '../../test/in-memory-cli.js';

const DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
const USDC_DEVNET = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
const host = generateAgentKey();
const holder = generateAgentKey();

/** A ledger offer of 700 EURC: an asset the CLI pays in only with --asset. */
const EURC_OFFER = {
  scheme: 'exact',
  network: 'ledger:development',
  maxAmountRequired: '700',
  asset: 'EURC',
  payTo: host.agentId,
  resource: 'http://127.0.0.1/events/e1/rsvp?tier=general',
  description: 'Ticket (General admission) for event e1',
  mimeType: 'application/json',
  maxTimeoutSeconds: 300,
  extra: { eventId: 'e1', tierId: 'general' },
};

/** An owed refund of 0.5 in `asset` on devnet, whose payment goes to `payTo`. */
function owedRefund(asset: string, payTo: string) {
  return {
    id: 'r1',
    eventId: 'e1',
    ticketId: 't1',
    holderId: holder.agentId,
    hostId: host.agentId,
    amount: '500000',
    asset,
    network: DEVNET,
    status: 'owed',
    transaction: null,
    createdAt: '2030-01-01T00:00:00.000Z',
    paidAt: null,
    payment: {
      scheme: 'exact',
      network: DEVNET,
      amount: '500000',
      asset,
      payTo,
      maxTimeoutSeconds: 300,
      extra: {
        eventId: 'e1',
        tierId: 'general',
        feePayer: host.agentId,
        memo: 'townhall:refund:r1',
        resource: 'http://127.0.0.1/events/e1/refunds/r1/pay',
      },
    },
  };
}

describe('townhall rsvp and refunds pay: only what the buyer agreed to is signed', () => {
  let home: string;
  let server: Server;
  let url: string;
  /** Each request: `METHOD path`, and `paid` when it carried a payment. */
  const seen: string[] = [];
  let refunds: unknown[] = [];

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'townhall-cli-payments-'));
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const paid =
          request.headers['x-payment'] !== undefined || request.headers['payment-signature'] !== undefined;
        const path = new URL(request.url ?? '/', 'http://x').pathname;
        seen.push(`${request.method} ${path}${paid ? ' paid' : ''}`);
        const [status, body] =
          path === '/events/e1/rsvp'
            ? paid
              ? [
                  201,
                  {
                    id: 't1',
                    eventId: 'e1',
                    tierId: 'general',
                    price: '700',
                    asset: 'EURC',
                    status: 'active',
                  },
                ]
              : [
                  402,
                  {
                    status: 402,
                    code: 'payment.required',
                    detail: 'pay',
                    x402Version: 1,
                    accepts: [EURC_OFFER],
                  },
                ]
            : [200, { items: refunds, nextCursor: null }];
        response.writeHead(status, {
          'content-type': status === 402 ? 'application/problem+json' : 'application/json',
        });
        response.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await townhall('keygen');
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(home, { recursive: true, force: true });
  });
  beforeEach(() => {
    seen.length = 0;
  });

  const townhall = (...argv: string[]) => runInMemory(['--url', url, ...argv], { home, confirm: true });

  it('refuses a ticket in another asset than USDC without --asset, and pays it with', async () => {
    const refused = await townhall('rsvp', 'e1', '--max-price', '700');
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(
      /^error payment\.refused: a ticket \(tier general\) is sold in EURC on ledger:development, .*pass --asset EURC; nothing was paid\n$/,
    );
    expect(seen).toEqual(['POST /events/e1/rsvp']);

    seen.length = 0;
    const paid = await townhall('rsvp', 'e1', '--max-price', '700', '--asset', 'EURC');
    expect(paid).toMatchObject({ code: 0, stderr: '' });
    expect(seen).toEqual(['POST /events/e1/rsvp', 'POST /events/e1/rsvp', 'POST /events/e1/rsvp paid']);
  });

  it('refuses to pay refunds when a payment is not its refund, or in a mint not agreed to', async () => {
    refunds = [owedRefund(USDC_DEVNET, generateAgentKey().agentId)];
    const elsewhere = await townhall('refunds', 'pay', 'e1', '--rpc', 'http://127.0.0.1:9');
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toMatch(
      /^error payment\.refused: refund r1: its payment's payTo is \S+, the refund's is /,
    );
    expect(elsewhere.stderr).not.toContain('--asset');

    const mint = generateAgentKey().agentId;
    refunds = [owedRefund(mint, holder.agentId)];
    const otherMint = await townhall('refunds', 'pay', 'e1', '--rpc', 'http://127.0.0.1:9');
    expect(otherMint.code).toBe(1);
    expect(otherMint.stderr).toContain(`; to pay in it, pass --asset ${mint}\n`);
    expect(seen).toEqual(['GET /events/e1/refunds', 'GET /events/e1/refunds']);
  });
});
