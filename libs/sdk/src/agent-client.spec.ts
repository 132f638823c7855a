import * as ed from '@noble/ed25519';
import bs58 from 'bs58';
import { AUTHORIZATION_PATTERN, buildSigningString, sha256Hex } from '@townhall/auth/portable';
import { AgentClient } from './agent-client.js';

describe('AgentClient.sign', () => {
  it('signs a request it does not send, for the client audience', async () => {
    const agent = new AgentClient({ baseUrl: 'http://127.0.0.1:3000/' });
    const body = JSON.stringify({ handle: 'curl_agent' });
    const signed = agent.sign('PUT', '/directory/me?x=1', body);

    const match = AUTHORIZATION_PATTERN.exec(signed.authorization);
    expect(match?.[1]).toBe(agent.agentId);
    expect(match?.[3]).toBe(signed.timestamp);
    const signingString = buildSigningString({
      audience: 'http://127.0.0.1:3000',
      method: 'PUT',
      path: '/directory/me',
      query: 'x=1',
      agentId: agent.agentId,
      timestamp: signed.timestamp,
      nonce: signed.nonce,
      bodySha256: sha256Hex(body),
    });
    expect(signed.signingString).toBe(signingString);
    const signature = bs58.decode(match![2]!);
    expect(
      await ed.verifyAsync(signature, new TextEncoder().encode(signingString), agent.key.publicKey),
    ).toBe(true);
    // A fresh nonce every time.
    expect(agent.sign('PUT', '/directory/me?x=1', body).nonce).not.toBe(signed.nonce);
  });

  it('sends what it signs', async () => {
    const seen: Array<{ url: string; headers: Headers; body: unknown }> = [];
    const agent = new AgentClient({
      baseUrl: 'http://example.test',
      fetch: async (url, init) => {
        seen.push({ url: String(url), headers: new Headers(init?.headers), body: init?.body });
        return new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    expect(await agent.call('POST', '/ledger/faucet', { body: { amount: '5' } })).toEqual({ ok: true });
    const [request] = seen;
    expect(request!.url).toBe('http://example.test/ledger/faucet');
    expect(request!.headers.get('authorization')).toMatch(AUTHORIZATION_PATTERN);
    expect(request!.headers.get('x-nonce')).toMatch(/^[A-Za-z0-9_-]{22,64}$/);
    expect(request!.body).toBe('{"amount":"5"}');
  });
});
