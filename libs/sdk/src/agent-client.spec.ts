import * as ed from '@noble/ed25519';
import bs58 from 'bs58';
import { AUTHORIZATION_PATTERN, buildSigningString, sha256Hex } from '@townhall/auth/portable';
import { LedgerRoutes, QuestionRoutes, StageRoutes } from '@townhall/contracts';
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

/** An agent whose fetch answers `reply` (200, JSON) and records each request as one line. */
function recordingAgent(reply: unknown = { items: [], nextCursor: null }) {
  const seen: string[] = [];
  const agent = new AgentClient({
    baseUrl: 'http://example.test',
    fetch: async (url, init) => {
      const { pathname, search } = new URL(String(url));
      const headers = new Headers(init?.headers);
      const signed = headers.has('authorization') && headers.has('x-nonce');
      const body = typeof init?.body === 'string' ? [init.body] : [];
      seen.push([init?.method, pathname + search, signed ? 'signed' : 'unsigned', ...body].join(' '));
      return new Response(JSON.stringify(reply), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    },
  });
  return { agent, seen };
}

describe('AgentClient moderation calls', () => {
  it('reads questions unsigned, signed for pending and withdrawn, or when asked to', async () => {
    const { agent, seen } = recordingAgent();
    await agent.questions.list('e1');
    await agent.questions.list('e1', { state: 'open', sort: 'new' });
    await agent.questions.list('e1', { state: 'answered', signed: false });
    await agent.questions.list('e1', { state: 'pending' });
    await agent.questions.list('e1', { state: 'withdrawn', limit: 5 });
    await agent.questions.list('e1', { signed: true });
    expect(seen).toEqual([
      'GET /events/e1/questions unsigned',
      'GET /events/e1/questions?state=open&sort=new unsigned',
      'GET /events/e1/questions?state=answered unsigned',
      'GET /events/e1/questions?state=pending signed',
      'GET /events/e1/questions?state=withdrawn&limit=5 signed',
      // `signed` chooses the signature; it is never sent as a query parameter.
      'GET /events/e1/questions signed',
    ]);
  });

  it('lets a call choose the signature only on a route that accepts one', async () => {
    const { agent, seen } = recordingAgent();
    await agent.route(StageRoutes.list, { eventId: 'e1' }, { signed: true });
    await agent.route(LedgerRoutes.balance, {}, { signed: false });
    await agent.route(QuestionRoutes.list, { eventId: 'e1' }, { signed: true });
    await agent.route(QuestionRoutes.list, { eventId: 'e1' });
    expect(seen).toEqual([
      'GET /events/e1/stage unsigned',
      'GET /ledger/balance signed',
      'GET /events/e1/questions signed',
      'GET /events/e1/questions unsigned',
    ]);
  });

  it('approves, withdraws, reports and hides at their routes, signed', async () => {
    const { agent, seen } = recordingAgent({});
    await agent.questions.approve('e1', 'q1');
    await agent.questions.withdraw('e1', 'q1');
    await agent.questions.withdrawUpvote('e1', 'q1');
    await agent.questions.report('e1', 'q1');
    await agent.questions.report('e1', 'q1', 'off topic');
    await agent.stage.hide('e1', 'm1');
    expect(seen).toEqual([
      'POST /events/e1/questions/q1/approve signed',
      'POST /events/e1/questions/q1/withdraw signed',
      'DELETE /events/e1/questions/q1/upvote signed',
      'POST /events/e1/questions/q1/report signed {}',
      'POST /events/e1/questions/q1/report signed {"reason":"off topic"}',
      'POST /events/e1/stage/m1/hide signed',
    ]);
  });

  it('blocks, unblocks and lists blocks, signed', async () => {
    const { agent, seen } = recordingAgent({});
    await agent.moderation.block('e1', 'agent-b');
    await agent.moderation.unblock('e1', 'agent-b');
    await agent.moderation.blocks('e1', { limit: 10 });
    expect(seen).toEqual([
      'POST /events/e1/blocks signed {"agentId":"agent-b"}',
      'DELETE /events/e1/blocks/agent-b signed',
      'GET /events/e1/blocks?limit=10 signed',
    ]);
  });
});
