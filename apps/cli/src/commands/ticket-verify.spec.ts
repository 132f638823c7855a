import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { receiptKeySet, ReceiptSigner, signReceipt } from '@townhall/x402/extensions';
import { encodePaymentResponse } from '@townhall/x402';
import { runInMemory } from '../../test/in-memory-cli.js';

describe('townhall ticket verify: a receipt checked offline against the service’s keys', () => {
  const { signer } = ReceiptSigner.generate();
  const older = ReceiptSigner.generate().signer;
  let home: string;
  let server: Server;
  let url: string;
  let receipt: { format: 'jws'; signature: string };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'townhall-cli-verify-'));
    server = createServer((request, response) => {
      const found = request.url === '/.well-known/jwks.json';
      response.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
      response.end(JSON.stringify(found ? receiptKeySet(signer.publicKey, [older.publicKey]) : {}));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    receipt = await signReceipt(signer, {
      resourceUrl: `${url}/events/e1/rsvp?tier=general`,
      payer: 'FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z',
      network: 'ledger:development',
      transaction: 'entry-1',
      amount: '2500',
      asset: 'USDC',
      issuedAt: new Date('2030-01-01T00:00:00.000Z'),
    });
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(home, { recursive: true, force: true });
  });

  const townhall = (...argv: string[]) => runInMemory(['--url', url, ...argv], { home, confirm: true });

  it('prints what a receipt names once it verifies with the published set, in any form kept', async () => {
    const header = encodePaymentResponse({
      success: true,
      transaction: 'entry-1',
      network: 'ledger:development',
      payer: 'p',
      extensions: { 'offer-receipt': { info: { receipt } } },
    });
    for (const kept of [receipt.signature, JSON.stringify(receipt), header]) {
      const result = await townhall('ticket', 'verify', kept);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain(`verified: signed by key ${signer.kid}`);
      expect(result.stdout).toMatch(/amount {7}0\.0025 USDC \(2500\)/);
      expect(result.stdout).toMatch(/transaction {2}entry-1/);
    }
    const json = await townhall('--json', 'tickets', 'verify', receipt.signature);
    expect(JSON.parse(json.stdout)).toMatchObject({
      verified: true,
      kid: signer.kid,
      amount: '2500',
      network: 'ledger:development',
      issuedAt: '2030-01-01T00:00:00.000Z',
    });
  });

  it('exits 1 for a receipt that does not verify: tampered, or signed by a key not in --jwks', async () => {
    const [head, payload, signature] = receipt.signature.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const cheaper = Buffer.from(JSON.stringify({ ...claims, amount: '1' })).toString('base64url');
    const tampered = await townhall('ticket', 'verify', `${head}.${cheaper}.${signature}`);
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toMatch(/^error receipt\.invalid: the signature does not verify/);

    const file = join(home, 'jwks.json');
    await writeFile(file, JSON.stringify(receiptKeySet(older.publicKey, [])));
    const unknown = await townhall('ticket', 'verify', receipt.signature, '--jwks', file);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/receipt\.invalid: no key of the set has kid/);

    const garbage = await townhall('ticket', 'verify', 'not-a-receipt');
    expect(garbage.code).toBe(1);
    expect(garbage.stderr).toMatch(/receipt\.invalid/);
  });
});
