// A second implementation of the wire protocol, written from docs/protocol/*.md with node:crypto
// only (second-implementation/client.mjs), must reproduce the test vectors and be accepted by a
// running server: the documents are complete enough to build a client from.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, StandaloneProcess, freePort } from '@townhall/testing';

interface Agent {
  agentId: string;
  publicKey: Uint8Array;
}
interface Signed {
  signingString: string;
  authorization: string;
  nonce: string;
}
interface Sent {
  status: number;
  headers: Headers;
  json: Record<string, unknown> | null;
  signed: Signed;
}
interface Requirements {
  network: string;
  payTo: string;
  maxAmountRequired: string;
  asset: string;
  resource: string;
  maxTimeoutSeconds: number;
  extra: { eventId: string; tierId: string };
}
interface Client {
  makeAgent(seed?: string): Agent;
  signRequest(
    agent: Agent,
    input: {
      audience: string;
      method: string;
      target: string;
      body?: string;
      timestamp?: string;
      nonce?: string;
    },
  ): Signed;
  send(
    agent: Agent,
    baseUrl: string,
    audience: string,
    method: string,
    target: string,
    options?: { body?: string; sendBody?: string; signed?: Signed; headers?: Record<string, string> },
  ): Promise<Sent>;
  ledgerMessage(network: string, authorization: Record<string, string>): string;
  ledgerPayment(
    agent: Agent,
    requirements: Requirements,
    options?: { now?: Date; nonce?: string },
  ): { payload: { payload: { signature: string; authorization: Record<string, string> } }; header: string };
}

interface AuthVectors {
  key: { secretKeyHex: string; agentId: string };
  audience: string;
  timestamp: string;
  nonce: string;
  cases: {
    name: string;
    method: string;
    target: string;
    body: string;
    signingString: string;
    authorization: string;
    xNonce: string;
  }[];
}
interface LedgerVector {
  key: { secretKeyHex: string };
  now: string;
  network: string;
  requirements: Requirements;
  authorization: Record<string, string>;
  message: string;
  signature: string;
  xPayment: string;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(join(REPO_ROOT, path), 'utf8')) as T;
const authVectors = readJson<AuthVectors>('libs/auth/test-vectors/service-auth-v1.json');
const ledgerVector = readJson<LedgerVector>('libs/x402/test-vectors/x402-ledger-v1.json');

let client: Client;

beforeAll(async () => {
  // A computed specifier: the client is plain JavaScript with no types, loaded as the ESM it is.
  const url = pathToFileURL(join(REPO_ROOT, 'test/e2e/second-implementation/client.mjs')).href;
  client = (await import(url)) as Client;
});

describe('a second implementation built from docs/protocol', () => {
  it('derives the agentId of the vector key', () => {
    expect(client.makeAgent(authVectors.key.secretKeyHex).agentId).toBe(authVectors.key.agentId);
  });

  it.each(authVectors.cases.map((c) => [c.name, c] as const))(
    'reproduces the service-auth-v1 vector %s byte for byte',
    (_name, vector) => {
      const agent = client.makeAgent(authVectors.key.secretKeyHex);
      const signed = client.signRequest(agent, {
        audience: authVectors.audience,
        method: vector.method,
        target: vector.target,
        body: vector.body,
        timestamp: authVectors.timestamp,
        nonce: authVectors.nonce,
      });
      expect(signed.signingString).toBe(vector.signingString);
      expect(signed.authorization).toBe(vector.authorization);
      expect(signed.nonce).toBe(vector.xNonce);
    },
  );

  it('reproduces the x402-ledger-v1 vector byte for byte', () => {
    const agent = client.makeAgent(ledgerVector.key.secretKeyHex);
    const payment = client.ledgerPayment(agent, ledgerVector.requirements, {
      now: new Date(ledgerVector.now),
      nonce: ledgerVector.authorization['nonce'],
    });
    expect(payment.payload.payload.authorization).toEqual(ledgerVector.authorization);
    expect(client.ledgerMessage(ledgerVector.network, payment.payload.payload.authorization)).toBe(
      ledgerVector.message,
    );
    expect(payment.payload.payload.signature).toBe(ledgerVector.signature);
    expect(payment.header).toBe(ledgerVector.xPayment);
  });

  describe('against a running standalone server', () => {
    let server: StandaloneProcess;
    let audience: string;

    beforeAll(async () => {
      const port = await freePort();
      audience = `http://127.0.0.1:${port}`;
      server = await StandaloneProcess.start({ PUBLIC_BASE_URL: audience }, port);
    });
    afterAll(async () => {
      await server?.stop();
    });

    const send = (agent: Agent, method: string, target: string, options?: Parameters<Client['send']>[5]) =>
      client.send(agent, server.baseUrl, audience, method, target, options);

    it('is accepted, refuses a replayed nonce and refuses a body other than the one signed', async () => {
      const agent = client.makeAgent();
      const body = JSON.stringify({ handle: 'second_impl' });

      const created = await send(agent, 'PUT', '/directory/me', { body });
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({ agentId: agent.agentId, handle: 'second_impl' });

      const read = await send(agent, 'GET', `/directory/${agent.agentId}`);
      expect(read.status).toBe(200);
      expect(read.json).toMatchObject({ agentId: agent.agentId, handle: 'second_impl' });

      const replayed = await send(agent, 'PUT', '/directory/me', { body, signed: created.signed });
      expect(replayed.status).toBe(401);
      expect(replayed.json).toMatchObject({ status: 401, code: 'auth.nonce_replayed' });
      expect(replayed.headers.get('www-authenticate')).toBe(`service realm="${audience}"`);
      expect(replayed.headers.get('content-type')).toMatch(/^application\/problem\+json/);

      const tampered = await send(agent, 'PUT', '/directory/me', {
        body,
        sendBody: JSON.stringify({ handle: 'second_imp2' }),
      });
      expect(tampered.status).toBe(401);
      expect(tampered.json).toMatchObject({ status: 401, code: 'auth.signature_invalid' });
    });

    it('pays for a ticket with an x402-ledger-v1 payment signed by node:crypto', async () => {
      const host = client.makeAgent();
      const buyer = client.makeAgent();

      const funded = await send(buyer, 'POST', '/ledger/faucet', {
        body: JSON.stringify({ amount: '10000' }),
      });
      expect(funded.status).toBe(201);

      const startsAt = new Date(Date.now() + 24 * 3_600_000);
      const created = await send(host, 'POST', '/events', {
        body: JSON.stringify({
          title: 'Second implementation',
          startsAt: startsAt.toISOString(),
          endsAt: new Date(startsAt.getTime() + 3_600_000).toISOString(),
          timezone: 'UTC',
          capacity: 10,
          ticketing: { mode: 'single', price: '2500' },
        }),
      });
      expect(created.status).toBe(201);
      const eventId = String(created.json?.['id']);

      const target = `/events/${eventId}/rsvp`;
      const unpaid = await send(buyer, 'POST', target, { body: '{}' });
      expect(unpaid.status).toBe(402);
      expect(unpaid.json).toMatchObject({ x402Version: 1, code: 'payment.required' });
      expect(unpaid.headers.get('payment-required')).toEqual(expect.any(String));
      const accepts = unpaid.json?.['accepts'] as Requirements[];
      expect(accepts).toHaveLength(1);
      const [requirements] = accepts;
      expect(requirements).toMatchObject({
        scheme: 'exact',
        payTo: host.agentId,
        maxAmountRequired: '2500',
        resource: `${audience}/events/${eventId}/rsvp?tier=general`,
      });

      const payment = client.ledgerPayment(buyer, requirements!);
      const paid = await send(buyer, 'POST', target, {
        body: '{}',
        headers: { 'x-payment': payment.header },
      });
      expect(paid.status).toBe(201);
      expect(paid.json).toMatchObject({ eventId, holderId: buyer.agentId, price: '2500' });
      const response = JSON.parse(
        Buffer.from(paid.headers.get('x-payment-response') ?? '', 'base64').toString('utf8'),
      ) as Record<string, unknown>;
      expect(response).toMatchObject({ success: true, network: requirements!.network, payer: buyer.agentId });
      expect(paid.headers.get('payment-response')).toBe(paid.headers.get('x-payment-response'));

      // The same payment again: the ticket already held, nothing charged twice.
      const again = await send(buyer, 'POST', target, {
        body: '{}',
        headers: { 'x-payment': payment.header },
      });
      expect(again.status).toBe(200);
      expect(again.json?.['id']).toBe(paid.json?.['id']);
      const balance = await send(buyer, 'GET', '/ledger/balance');
      expect(balance.status).toBe(200);
      expect(JSON.stringify(balance.json)).toContain('"7500"');
    });
  });
});
