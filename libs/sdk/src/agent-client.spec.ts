import { createHash, createPublicKey } from 'node:crypto';
import * as ed from '@noble/ed25519';
import bs58 from 'bs58';
import { createVerifier, httpbis } from 'http-message-signatures';
import {
  agentJwk,
  agentKeyThumbprint,
  AUTHORIZATION_PATTERN,
  buildSigningString,
  MESSAGE_NONCE_PATTERN,
  sha256Hex,
} from '@townhall/auth/portable';
import { LedgerRoutes, QuestionRoutes, StageRoutes } from '@townhall/contracts';
import { AgentClient } from './agent-client.js';
import { TownhallError } from './townhall-error.js';

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

describe('AgentClient with signatureScheme rfc9421', () => {
  /** http-message-signatures' (httpbis) verdict on a request the client sent, for the agent's key. */
  function verifiedByHttpbis(agent: AgentClient, request: { method: string; url: string; headers: Headers }) {
    const publicKey = createPublicKey({ key: { ...agentJwk(agent.agentId) }, format: 'jwk' });
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    return httpbis.verifyMessage(
      {
        keyLookup: async ({ keyid }) =>
          keyid === agent.agentId || keyid === agentKeyThumbprint(agent.agentId)
            ? { id: keyid, algs: ['ed25519'], verify: createVerifier(publicKey, 'ed25519') }
            : null,
        requiredFields: ['@method', '@authority', '@path', '@query'],
        requiredParams: ['created', 'expires', 'nonce', 'keyid', 'alg'],
      },
      { method: request.method, url: request.url, headers },
    );
  }

  it('signs every signed request with Signature-Input, Signature and Content-Digest instead', async () => {
    const sent: Array<{ method: string; url: string; headers: Headers; body: string | undefined }> = [];
    const agent = new AgentClient({
      baseUrl: 'http://example.test',
      signatureScheme: 'rfc9421',
      fetch: async (url, init) => {
        const body = init?.body instanceof Uint8Array ? new TextDecoder().decode(init.body) : init?.body;
        sent.push({
          method: init?.method ?? 'GET',
          url: String(url),
          headers: new Headers(init?.headers),
          body: body as string | undefined,
        });
        return new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    await agent.call('POST', '/ledger/faucet', { body: { amount: '5' } });
    await agent.call('GET', '/me/tickets', { query: { limit: 5, cursor: 'a b' } });
    await agent.call('GET', '/events', { signed: false });
    // Its copies sign alike, and the Idempotency-Key still goes with a signed write.
    await agent.withIdempotencyKey('k1').call('PUT', '/directory/me', { body: { handle: 'alice' } });
    await agent.fetch('http://example.test/events/e1/stage', { method: 'POST', body: '{"body":"hi ✓"}' });

    expect(sent.map(({ method, url }) => `${method} ${url}`)).toEqual([
      'POST http://example.test/ledger/faucet',
      'GET http://example.test/me/tickets?limit=5&cursor=a+b',
      'GET http://example.test/events',
      'PUT http://example.test/directory/me',
      'POST http://example.test/events/e1/stage',
    ]);
    const unsigned = sent[2]!;
    expect(unsigned.headers.has('signature-input')).toBe(false);
    const signed = sent.filter((request) => request !== unsigned);
    for (const request of signed) {
      expect(request.headers.has('authorization')).toBe(false);
      expect(request.headers.has('x-nonce')).toBe(false);
      expect(request.headers.get('signature-input')).toMatch(
        new RegExp(
          `^sig1=\\("@method" "@authority" "@path" "@query"( "content-digest")?\\);created=\\d+;expires=\\d+;nonce="[\\w-]+";keyid="${agent.agentId}";alg="ed25519"$`,
        ),
      );
      expect(request.headers.get('signature-input')!.match(/nonce="([^"]+)"/)![1]).toMatch(
        MESSAGE_NONCE_PATTERN,
      );
      expect(request.headers.get('content-digest')).toBe(
        request.body === undefined
          ? null
          : `sha-256=:${createHash('sha256').update(request.body).digest('base64')}:`,
      );
      expect(await verifiedByHttpbis(agent, request)).toBe(true);
    }
    expect(signed.map((request) => request.headers.get('idempotency-key'))).toEqual([null, null, 'k1', null]);
  });

  it('keeps service-auth-v1 the default, and signs for curl either way', async () => {
    const agent = new AgentClient({ baseUrl: 'http://127.0.0.1:3000' });
    expect(agent.signatureScheme).toBe('service-auth-v1');
    expect(agent.withIdempotencyKey('k').signatureScheme).toBe('service-auth-v1');
    const rfc9421 = new AgentClient({
      baseUrl: 'http://127.0.0.1:3000',
      key: agent.key,
      signatureScheme: 'rfc9421',
    });
    expect(rfc9421.withAssets(['USDC']).signatureScheme).toBe('rfc9421');
    // sign() is service-auth-v1 whatever the scheme; signRfc9421() is RFC 9421 whatever the scheme.
    expect(rfc9421.sign('GET', '/ledger/balance').authorization).toMatch(AUTHORIZATION_PATTERN);
    const signed = agent.signRfc9421('PUT', '/directory/me?x=1', '{"handle":"curl"}', {
      keyid: 'thumbprint',
    });
    expect(signed.keyid).toBe(agentKeyThumbprint(agent.agentId));
    expect(signed.expires - signed.created).toBe(60);
    expect(signed.signatureBase.split('\n').slice(0, 4)).toEqual([
      '"@method": PUT',
      '"@authority": 127.0.0.1:3000',
      '"@path": /directory/me',
      '"@query": ?x=1',
    ]);
    expect(Object.keys(signed.headers)).toEqual(['Signature-Input', 'Signature', 'Content-Digest']);
    const headers = new Headers({ ...signed.headers });
    expect(
      await verifiedByHttpbis(agent, {
        method: 'PUT',
        url: 'http://127.0.0.1:3000/directory/me?x=1',
        headers,
      }),
    ).toBe(true);
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

describe('AgentClient waitlist calls', () => {
  it('joins (201 new, 200 in line already), leaves and lists, signed', async () => {
    const { agent, seen } = recordingAgent({ id: 'w1', status: 'waiting', position: 1 });
    expect(await agent.waitlist.join('e1')).toEqual({
      entry: { id: 'w1', status: 'waiting', position: 1 },
      created: false,
    });
    await agent.waitlist.join('e1', { tierId: 'vip' });
    await agent.waitlist.leave('e1');
    await agent.waitlist.mine({ limit: 5, cursor: 'c' });
    expect(seen).toEqual([
      'POST /events/e1/waitlist signed {}',
      'POST /events/e1/waitlist signed {"tierId":"vip"}',
      'DELETE /events/e1/waitlist signed',
      'GET /me/waitlist?limit=5&cursor=c signed',
    ]);
    const created = new AgentClient({
      baseUrl: 'http://example.test',
      fetch: async () =>
        new Response(JSON.stringify({ id: 'w2' }), {
          status: 201,
          headers: { 'content-type': 'application/json' },
        }),
    });
    expect((await created.waitlist.join('e1')).created).toBe(true);
  });
});

describe('AgentClient invites', () => {
  it('adds, lists and removes invites at their routes, signed', async () => {
    const { agent, seen } = recordingAgent({});
    await agent.invites.add('e1', ['agent-b', 'agent-c']);
    await agent.invites.list('e1');
    await agent.invites.list('e1', { limit: 10, cursor: 'c' });
    await agent.invites.remove('e1', 'agent-b');
    expect(seen).toEqual([
      'POST /events/e1/invites signed {"agentIds":["agent-b","agent-c"]}',
      'GET /events/e1/invites signed',
      'GET /events/e1/invites?limit=10&cursor=c signed',
      'DELETE /events/e1/invites/agent-b signed',
    ]);
  });

  it('creates an invite-only event and changes its access', async () => {
    const { agent, seen } = recordingAgent({});
    await agent.events.create({
      title: 'AMA',
      startsAt: '2030-01-01T18:00:00Z',
      endsAt: '2030-01-01T19:00:00Z',
      timezone: 'UTC',
      capacity: 10,
      access: 'invite',
    });
    await agent.events.update('e1', { access: 'open' });
    expect(seen).toEqual([
      'POST /events signed {"title":"AMA","startsAt":"2030-01-01T18:00:00Z","endsAt":"2030-01-01T19:00:00Z","timezone":"UTC","capacity":10,"access":"invite"}',
      'PATCH /events/e1 signed {"access":"open"}',
    ]);
  });
});

describe('AgentClient requests to come', () => {
  /** agent-b's request to come to e1, as ticketing answers it. */
  const REQUEST = {
    eventId: 'e1',
    agentId: 'agent-b',
    status: 'requested',
    tierId: null,
    holdExpiresAt: null,
    requestedAt: '2027-03-04T19:05:00.000Z',
    decidedAt: null,
    decidedBy: null,
  };
  /** A pending ticket (a 202 too: its payment has not settled yet). */
  const PENDING = {
    id: 't1',
    eventId: 'e1',
    tierId: 'general',
    holderId: 'agent-b',
    status: 'pending',
    price: '700',
    asset: 'USDC',
    network: null,
    transaction: null,
    code: null,
    createdAt: '2027-03-04T19:05:00.000Z',
    cancelledAt: null,
  };
  const PAYMENT_REQUIRED = {
    type: 'about:blank',
    title: 'Payment required',
    status: 402,
    code: 'payment.required',
    accepts: [
      {
        scheme: 'exact',
        network: 'ledger:development',
        maxAmountRequired: '700',
        asset: 'USDC',
        payTo: 'host',
        resource: 'http://example.test/events/e1/rsvp?tier=general',
        description: 'AMA',
        mimeType: 'application/json',
        maxTimeoutSeconds: 300,
        extra: { eventId: 'e1', tierId: 'general' },
      },
    ],
  };
  /** An agent whose n-th request is answered `answers[n - 1]`. */
  function answering(...answers: Response[]) {
    let n = 0;
    return new AgentClient({ baseUrl: 'http://example.test', fetch: async () => answers[n++]! });
  }

  it('lists, approves and declines requests at their routes, signed', async () => {
    const { agent, seen } = recordingAgent({});
    await agent.requests.list('e1');
    await agent.requests.list('e1', { status: 'requested', limit: 10, cursor: 'c' });
    await agent.requests.approve('e1', 'agent-b');
    await agent.requests.decline('e1', 'agent-b');
    expect(seen).toEqual([
      'GET /events/e1/requests signed',
      'GET /events/e1/requests?status=requested&limit=10&cursor=c signed',
      'POST /events/e1/requests/agent-b/approve signed',
      'POST /events/e1/requests/agent-b/decline signed',
    ]);
  });

  it('creates an event that needs approval and changes its access', async () => {
    const { agent, seen } = recordingAgent({});
    await agent.events.create({
      title: 'AMA',
      startsAt: '2030-01-01T18:00:00Z',
      endsAt: '2030-01-01T19:00:00Z',
      timezone: 'UTC',
      capacity: 10,
      access: 'approval',
    });
    await agent.events.update('e1', { access: 'approval' });
    expect(seen).toEqual([
      'POST /events signed {"title":"AMA","startsAt":"2030-01-01T18:00:00Z","endsAt":"2030-01-01T19:00:00Z","timezone":"UTC","capacity":10,"access":"approval"}',
      'PATCH /events/e1 signed {"access":"approval"}',
    ]);
  });

  it("returns an RSVP's request (202) as { request }, nothing paid, not a ticket", async () => {
    const result = await answering(jsonResponse(REQUEST, 202)).tickets.rsvp('e1');
    expect(result).toEqual({ request: REQUEST });
    // Narrowed by `'request' in result`, as the contracts' RsvpReply is.
    expect('request' in result ? result.request.status : result.ticket.status).toBe('requested');
    // Approved since (a paid event): its seat is held until holdExpiresAt, and the next RSVP buys it.
    const approved = { ...REQUEST, status: 'approved', holdExpiresAt: '2027-03-04T19:20:00.000Z' };
    expect(await answering(jsonResponse(approved, 202)).tickets.rsvp('e1', { maxPrice: '700' })).toEqual({
      request: approved,
    });
  });

  it('keeps a pending ticket (also 202) a ticket, and reads a request answering the paying RSVP', async () => {
    const pending = await answering(
      jsonResponse(PAYMENT_REQUIRED, 402),
      jsonResponse(PENDING, 202),
    ).tickets.rsvp('e1', { maxPrice: '700' });
    expect(pending).toEqual({ ticket: PENDING, created: true, payment: null });
    // A ticket already held, pending: 200, nothing charged.
    expect(await answering(jsonResponse(PENDING, 200)).tickets.rsvp('e1')).toEqual({
      ticket: PENDING,
      created: false,
      payment: null,
    });
    // The event came to need approval between the 402 and the payment: the request, nothing charged.
    const asked = await answering(
      jsonResponse(PAYMENT_REQUIRED, 402),
      jsonResponse(REQUEST, 202),
    ).tickets.rsvp('e1', { maxPrice: '700' });
    expect(asked).toEqual({ request: REQUEST });
  });

  it('throws the refusal of a declined request, and of a waitlist join not approved yet', async () => {
    const problem = (code: string) =>
      jsonResponse(
        { type: 'about:blank', title: code, status: 403, code, detail: code, requestId: 'r' },
        403,
      );
    await expect(answering(problem('access.declined')).tickets.rsvp('e1')).rejects.toMatchObject({
      status: 403,
      code: 'access.declined',
    });
    await expect(answering(problem('access.not_approved')).waitlist.join('e1')).rejects.toMatchObject({
      status: 403,
      code: 'access.not_approved',
    });
  });
});

describe('AgentClient codes', () => {
  it('creates, lists and removes codes at their routes, signed', async () => {
    const { agent, seen } = recordingAgent({});
    await agent.codes.create('e1', { code: 'SPRING25', percentOff: 25, maxUses: 5, tierIds: ['general'] });
    await agent.codes.create('e1', {
      code: 'backstage',
      free: true,
      unlocksTierIds: ['crew'],
      expiresAt: '2030-01-01T00:00:00Z',
    });
    await agent.codes.list('e1');
    await agent.codes.list('e1', { limit: 10, cursor: 'c' });
    await agent.codes.remove('e1', 'spring25');
    expect(seen).toEqual([
      'POST /events/e1/codes signed {"code":"SPRING25","percentOff":25,"maxUses":5,"tierIds":["general"]}',
      'POST /events/e1/codes signed {"code":"backstage","free":true,"unlocksTierIds":["crew"],"expiresAt":"2030-01-01T00:00:00Z"}',
      'GET /events/e1/codes signed',
      'GET /events/e1/codes?limit=10&cursor=c signed',
      'DELETE /events/e1/codes/spring25 signed',
    ]);
  });

  /** The 402 of tier `general` (list price 1000) as a code discounts it: `price`. */
  function discounted(payTo: string, price: string) {
    return {
      type: 'about:blank',
      title: 'Payment required',
      status: 402,
      code: 'payment.required',
      accepts: [
        {
          scheme: 'exact',
          network: 'ledger:development',
          maxAmountRequired: price,
          asset: 'USDC',
          payTo,
          resource: 'http://example.test/events/e1/rsvp?tier=general',
          description: 'AMA',
          mimeType: 'application/json',
          maxTimeoutSeconds: 300,
          extra: { eventId: 'e1', tierId: 'general' },
        },
      ],
    };
  }
  const TICKET = {
    id: 't1',
    eventId: 'e1',
    tierId: 'general',
    holderId: 'buyer',
    status: 'active',
    price: '750',
    asset: 'USDC',
    network: null,
    transaction: null,
    code: 'SPRING25',
    createdAt: '2027-03-04T19:05:00.000Z',
    cancelledAt: null,
  };
  /** A buyer whose n-th request is answered `answers[n - 1]`, each request recorded with its body and payment header. */
  function buyer(...answers: Response[]) {
    const seen: string[] = [];
    const agent = new AgentClient({
      baseUrl: 'http://example.test',
      fetch: async (url, init) => {
        const headers = new Headers(init?.headers);
        const paid = headers.has('x-payment') ? ' x-payment' : '';
        seen.push(`${init?.method} ${new URL(String(url)).pathname} ${String(init?.body)}${paid}`);
        return answers[seen.length - 1]!;
      },
    });
    return { agent, seen };
  }

  it('sends the code with the RSVP and with its payment, and pays the discounted price the 402 offers', async () => {
    const host = new AgentClient({ baseUrl: 'http://example.test' });
    const { agent, seen } = buyer(
      jsonResponse(discounted(host.agentId, '750'), 402),
      jsonResponse(TICKET, 201),
    );
    // 800 is below the tier's list price (1000), and above what the code makes it cost.
    const result = await agent.tickets.rsvp('e1', { code: 'SPRING25', maxPrice: '800' });
    expect(result).toEqual({ ticket: TICKET, created: true, payment: null });
    expect(seen).toEqual([
      'POST /events/e1/rsvp {"code":"SPRING25"}',
      'POST /events/e1/rsvp {"tierId":"general","code":"SPRING25"} x-payment',
    ]);
    const withTier = buyer(jsonResponse(discounted(host.agentId, '750'), 402), jsonResponse(TICKET, 201));
    await withTier.agent.tickets.rsvp('e1', { tierId: 'general', code: 'SPRING25', maxPrice: '750' });
    expect(withTier.seen[0]).toBe('POST /events/e1/rsvp {"tierId":"general","code":"SPRING25"}');
  });

  it('refuses to pay a discounted price above maxPrice, signing nothing', async () => {
    const host = new AgentClient({ baseUrl: 'http://example.test' });
    const { agent, seen } = buyer(jsonResponse(discounted(host.agentId, '750'), 402));
    await expect(agent.tickets.rsvp('e1', { code: 'SPRING25', maxPrice: '700' })).rejects.toMatchObject({
      status: 402,
      code: 'payment.required',
    });
    expect(seen).toEqual(['POST /events/e1/rsvp {"code":"SPRING25"}']);
  });

  it('returns the ticket a code made free at once, with no payment and no maxPrice', async () => {
    const free = { ...TICKET, price: '0', code: 'FRIENDS' };
    const { agent, seen } = buyer(jsonResponse(free, 201));
    expect(await agent.tickets.rsvp('e1', { code: 'FRIENDS' })).toEqual({
      ticket: free,
      created: true,
      payment: null,
    });
    expect(seen).toEqual(['POST /events/e1/rsvp {"code":"FRIENDS"}']);
  });

  it("throws a code's refusals as TownhallError with their code", async () => {
    const problem = (status: number, code: string) =>
      jsonResponse({ type: 'about:blank', title: code, status, code, detail: code, requestId: 'r' }, status);
    for (const [status, code] of [
      [404, 'code.not_found'],
      [409, 'code.exhausted'],
      [409, 'code.expired'],
      [409, 'code.not_for_tier'],
    ] as const) {
      const { agent } = buyer(problem(status, code));
      await expect(agent.tickets.rsvp('e1', { code: 'SPRING25', maxPrice: '800' })).rejects.toMatchObject({
        status,
        code,
      });
    }
    const { agent } = buyer(problem(409, 'code.taken'));
    await expect(agent.codes.create('e1', { code: 'SPRING25', percentOff: 25 })).rejects.toMatchObject({
      status: 409,
      code: 'code.taken',
    });
  });
});

describe('AgentClient report', () => {
  /** An agent whose fetch answers `answer` and records method, path, signature and Accept. */
  function reader(answer: () => Response) {
    const seen: string[] = [];
    const agent = new AgentClient({
      baseUrl: 'http://example.test',
      fetch: async (url, init) => {
        const headers = new Headers(init?.headers);
        const signed = headers.has('authorization') && headers.has('x-nonce');
        seen.push(
          `${init?.method} ${new URL(String(url)).pathname} ${signed ? 'signed' : 'unsigned'} ${headers.get('accept')}`,
        );
        return answer();
      },
    });
    return { agent, seen };
  }

  it('reads the report as JSON, signed', async () => {
    const report = { eventId: 'e 1', status: 'live', attendance: { present: 2 } };
    const { agent, seen } = reader(() => jsonResponse(report));
    expect(await agent.events.report('e 1')).toEqual(report);
    expect(seen).toEqual(['GET /events/e%201/report signed application/json']);
  });

  it('reads the CSV as text, asking for text/csv, signed', async () => {
    const csv = 'agentId,handle\r\nA,"a,b"\r\n';
    const { agent, seen } = reader(
      () => new Response(csv, { status: 200, headers: { 'content-type': 'text/csv; charset=utf-8' } }),
    );
    expect(await agent.events.reportCsv('e1')).toBe(csv);
    expect(seen).toEqual(['GET /events/e1/report.csv signed text/csv']);
  });

  it("throws the report's refusals as TownhallError with their code", async () => {
    const problem = (status: number, code: string) =>
      jsonResponse({ type: 'about:blank', title: code, status, code, detail: code, requestId: 'r' }, status);
    const forbidden = reader(() => problem(403, 'role.forbidden')).agent;
    await expect(forbidden.events.report('e1')).rejects.toMatchObject({
      status: 403,
      code: 'role.forbidden',
    });
    await expect(forbidden.events.reportCsv('e1')).rejects.toBeInstanceOf(TownhallError);
    const unknown = reader(() => problem(404, 'event.not_found')).agent;
    await expect(unknown.events.reportCsv('e1')).rejects.toMatchObject({
      status: 404,
      code: 'event.not_found',
    });
  });
});

describe('AgentClient Idempotency-Key', () => {
  /** An agent whose fetch records method, path and Idempotency-Key, answering `answer(n)` to the n-th request. */
  function keyedAgent(answer: (n: number) => Response = () => jsonResponse({ id: 'x' })) {
    const seen: string[] = [];
    const agent = new AgentClient({
      baseUrl: 'http://example.test',
      fetch: async (url, init) => {
        const headers = new Headers(init?.headers);
        seen.push(
          `${init?.method} ${new URL(String(url)).pathname} ${headers.get('idempotency-key') ?? '-'}`,
        );
        return answer(seen.length);
      },
    });
    return { agent, seen };
  }

  it('sends a key given to request(), call() or route() on signed writes only', async () => {
    const { agent, seen } = keyedAgent();
    await agent.request('POST', '/events', { body: {}, idempotencyKey: 'k1' });
    await agent.call('DELETE', '/events/e1/blocks/a', { idempotencyKey: 'k2' });
    await agent.route(StageRoutes.post, { eventId: 'e1', body: 'hi' }, { idempotencyKey: 'k3' });
    // Not on reads, nor on unsigned requests.
    await agent.request('GET', '/ledger/balance', { idempotencyKey: 'k4' });
    await agent.request('POST', '/events', { body: {}, signed: false, idempotencyKey: 'k5' });
    await agent.request('POST', '/events', { body: {} });
    expect(seen).toEqual([
      'POST /events k1',
      'DELETE /events/e1/blocks/a k2',
      'POST /events/e1/stage k3',
      'GET /ledger/balance -',
      'POST /events -',
      'POST /events -',
    ]);
  });

  it('scopes a key to a client from withIdempotencyKey(): the same agent, its key on each write', async () => {
    const { agent, seen } = keyedAgent();
    const once = agent.withIdempotencyKey('create-1');
    expect(once.agentId).toBe(agent.agentId);
    expect(once.audience).toBe(agent.audience);
    await once.events.create({
      title: 'AMA',
      startsAt: '2030-01-01T18:00:00Z',
      endsAt: '2030-01-01T19:00:00Z',
      timezone: 'UTC',
      capacity: 10,
    });
    await once.events.get('e1');
    await once.request('POST', '/events', { body: {}, idempotencyKey: 'other' });
    await once.request('POST', '/events', { body: {}, idempotencyKey: null });
    await agent.request('POST', '/events', { body: {} });
    expect(seen).toEqual([
      'POST /events create-1',
      'GET /events/e1 -',
      'POST /events other',
      'POST /events -',
      'POST /events -',
    ]);
  });

  it('sends the RSVP key on the paying request only, and reads a replayed payment response', async () => {
    const host = new AgentClient({ baseUrl: 'http://example.test' });
    const offer = {
      scheme: 'exact',
      network: 'ledger:development',
      maxAmountRequired: '700',
      asset: 'USDC',
      payTo: host.agentId,
      resource: 'http://example.test/events/e1/rsvp?tier=general',
      description: 'AMA',
      mimeType: 'application/json',
      maxTimeoutSeconds: 300,
      extra: { eventId: 'e1', tierId: 'general' },
    };
    const settlement = { success: true, transaction: 'tx', network: 'ledger:development', payer: 'buyer' };
    const ticket = { id: 't1', eventId: 'e1', tierId: 'general', status: 'active', price: '700' };
    const { agent: buyer, seen } = keyedAgent((n) =>
      n % 2 === 1
        ? jsonResponse(
            {
              type: 'about:blank',
              title: 'Payment required',
              status: 402,
              code: 'payment.required',
              accepts: [offer],
            },
            402,
          )
        : jsonResponse(ticket, 201, {
            'x-payment-response': Buffer.from(JSON.stringify(settlement)).toString('base64'),
            // The second paying request is answered from the key's first answer.
            ...(n > 2 ? { 'idempotent-replayed': 'true' } : {}),
          }),
    );
    const first = await buyer.tickets.rsvp('e1', { maxPrice: '700', idempotencyKey: 'rsvp-1' });
    const again = await buyer.withIdempotencyKey('rsvp-1').tickets.rsvp('e1', { maxPrice: '700' });
    expect(seen).toEqual([
      'POST /events/e1/rsvp -',
      'POST /events/e1/rsvp rsvp-1',
      'POST /events/e1/rsvp -',
      'POST /events/e1/rsvp rsvp-1',
    ]);
    for (const result of [first, again])
      expect(result).toEqual({ ticket, created: true, payment: settlement });
  });
});

function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json', ...headers },
  });
}
