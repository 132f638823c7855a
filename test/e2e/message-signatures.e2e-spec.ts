import { createHash, createPrivateKey, randomBytes, sign as cryptoSign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { agentKeyThumbprint, decodeAgentId, generateAgentKey, type AgentKey } from '@townhall/auth';
import type { EventFieldsInput } from '@townhall/contracts';
import { AgentClient, TownhallError } from '@townhall/sdk';
import { StandaloneProcess, Topology } from '@townhall/testing';
import { httpbis } from 'http-message-signatures';
import { helpers, jwkToKeyID, signatureHeaders } from 'web-bot-auth';
import { Ed25519Signer } from 'web-bot-auth/crypto';

/**
 * RFC 9421 signatures from the official packages (web-bot-auth, http-message-signatures), with no
 * code of this project on the signing side, accepted as the agent whose key made them, in both
 * modes (docs/protocol/signing.md "RFC 9421 signatures").
 */
const HOUR = 3_600_000;
const STANDALONE_AUDIENCE = 'http://townhall.message-signatures.test';
const FULL = ['@method', '@authority', '@path', '@query', 'content-digest'];

interface Target {
  /** Where requests go. */
  url: string;
  /** What they are signed for (PUBLIC_BASE_URL). */
  audience: string;
  client(key?: AgentKey): AgentClient;
}

type Signer = 'web-bot-auth' | 'http-message-signatures';

interface Signed {
  method: string;
  path: string;
  body: string;
  headers: Record<string, string>;
}

const base64UrlEncode = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

function privateJwk(key: AgentKey): JsonWebKey {
  return { kty: 'OKP', crv: 'Ed25519', x: base64UrlEncode(key.publicKey), d: base64UrlEncode(key.secretKey) };
}

function publicJwk(key: AgentKey): JsonWebKey {
  return { kty: 'OKP', crv: 'Ed25519', x: base64UrlEncode(key.publicKey) };
}

function digest(body: string): string {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}

/** A request signed by an official package; the body gets a Content-Digest, covered. */
async function sign(
  signer: Signer,
  target: Target,
  key: AgentKey,
  request: { method: string; path: string; body?: unknown },
  options: {
    components?: string[] | 'default';
    created?: Date;
    keyid?: 'agentId' | 'thumbprint';
    headers?: Record<string, string>;
  } = {},
): Promise<Signed> {
  const body = request.body === undefined ? '' : JSON.stringify(request.body);
  const headers: Record<string, string> = {
    ...(body === '' ? {} : { 'content-type': 'application/json', 'content-digest': digest(body) }),
    ...options.headers,
  };
  const url = `${target.audience}${request.path}`;
  const created = options.created ?? new Date();
  const expires = new Date(created.getTime() + 60_000);
  const wanted = options.components ?? (body === '' ? FULL.slice(0, 4) : FULL);
  const components = [
    ...(wanted === 'default' ? [] : wanted),
    ...(options.headers?.['signature-agent'] ? ['signature-agent'] : []),
  ];
  if (signer === 'web-bot-auth') {
    const webBotSigner = await Ed25519Signer.fromJWK(privateJwk(key));
    if (options.keyid === 'agentId') webBotSigner.keyid = key.agentId;
    const signed = await signatureHeaders({ method: request.method, url, headers }, webBotSigner, {
      created,
      expires,
      ...(wanted === 'default' ? {} : { components }),
    });
    return {
      ...request,
      body,
      headers: { ...headers, 'signature-input': signed['Signature-Input'], signature: signed.Signature },
    };
  }
  const privateKey = createPrivateKey({ key: privateJwk(key) as never, format: 'jwk' });
  const keyid =
    options.keyid === 'thumbprint'
      ? await jwkToKeyID(publicJwk(key) as never, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE)
      : key.agentId;
  const signed = await httpbis.signMessage(
    {
      key: { id: keyid, alg: 'ed25519', sign: async (data) => cryptoSign(null, data, privateKey) },
      fields: wanted === 'default' ? ['@authority'] : components,
      params: ['created', 'expires', 'nonce', 'keyid', 'alg'],
      paramValues: { created, expires, nonce: randomBytes(32).toString('base64url') },
    },
    { method: request.method, url, headers },
  );
  const lowerCase = Object.entries(signed.headers).map(([name, value]) => [
    name.toLowerCase(),
    String(value),
  ]);
  return { ...request, body, headers: Object.fromEntries(lowerCase) as Record<string, string> };
}

async function send(target: Target, signed: Signed, body = signed.body): Promise<Response> {
  return fetch(`${target.url}${signed.path}`, {
    method: signed.method,
    headers: signed.headers,
    ...(body === '' ? {} : { body }),
  });
}

async function problem(response: Response): Promise<{ status: number; code: unknown }> {
  const body = (await response.json()) as { code?: unknown };
  return { status: response.status, code: body.code };
}

function anEvent(): EventFieldsInput {
  const startsAt = new Date(Date.now() + HOUR);
  return {
    title: 'Signed by others',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 50,
  };
}

/** A Signature-Agent's key directory on 127.0.0.1 (test gateways allow private addresses). */
async function keyDirectory(
  keys: AgentKey[],
): Promise<{ origin: string; server: Server; requests: () => number }> {
  let requests = 0;
  const server = createServer((request, response) => {
    requests++;
    if (request.url !== '/.well-known/http-message-signatures-directory') {
      response.writeHead(404).end();
      return;
    }
    response
      .writeHead(200, { 'content-type': 'application/http-message-signatures-directory+json' })
      .end(JSON.stringify({ keys: keys.map(publicJwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, server, requests: () => requests };
}

describe.each([['distributed'], ['standalone']] as const)('RFC 9421 signatures (%s)', (mode) => {
  let topology: Topology | undefined;
  let standalone: StandaloneProcess | undefined;
  let target: Target;

  beforeAll(async () => {
    if (mode === 'distributed') {
      topology = await Topology.start();
      const running = topology;
      target = { url: running.baseUrl, audience: running.baseUrl, client: (key) => running.client(key) };
    } else {
      standalone = await StandaloneProcess.start({
        PUBLIC_BASE_URL: STANDALONE_AUDIENCE,
        SIGNATURE_AGENT_ALLOW_PRIVATE: 'true',
      });
      const running = standalone;
      target = {
        url: running.baseUrl,
        audience: STANDALONE_AUDIENCE,
        client: (key) =>
          new AgentClient({
            baseUrl: running.baseUrl,
            audience: STANDALONE_AUDIENCE,
            ...(key ? { key } : {}),
          }),
      };
    }
  });
  afterAll(async () => {
    await Promise.all([topology?.stop(), standalone?.stop()]);
  });

  it.each([['web-bot-auth'], ['http-message-signatures']] as const)(
    '%s: a signed read, PUT /directory/me and a question post are the agent; less coverage, a replay, a changed body and an expired signature are 401',
    async (signer) => {
      const host = target.client();
      const key = generateAgentKey();
      const event = await host.events.create(anEvent());
      await target.client(key).tickets.rsvp(event.id);
      await host.events.start(event.id);
      // The agent has signed (its RSVP above, service-auth-v1): its key's thumbprint is known.
      const keyid = signer === 'web-bot-auth' ? 'thumbprint' : 'agentId';

      const card = { handle: `h${randomBytes(4).toString('hex')}`, displayName: 'Signed elsewhere' };
      const put = await sign(
        signer,
        target,
        key,
        { method: 'PUT', path: '/directory/me', body: card },
        { keyid },
      );
      const putAnswer = await send(target, put);
      expect(putAnswer.status).toBe(201);
      expect(await putAnswer.json()).toMatchObject({ agentId: key.agentId, handle: card.handle });

      const read = await sign(
        signer,
        target,
        key,
        { method: 'GET', path: `/events/${event.id}/rsvp` },
        { keyid },
      );
      const readAnswer = await send(target, read);
      expect(readAnswer.status).toBe(200);
      expect(await readAnswer.json()).toMatchObject({ holderId: key.agentId, eventId: event.id });

      const question = await sign(
        signer,
        target,
        key,
        { method: 'POST', path: `/events/${event.id}/questions`, body: { body: 'Who signed this?' } },
        { keyid },
      );
      const asked = await send(target, question);
      expect(asked.status).toBe(201);
      expect(await asked.json()).toMatchObject({ authorId: key.agentId });

      // A replayed nonce.
      expect(await problem(await send(target, question))).toEqual({
        status: 401,
        code: 'auth.nonce_replayed',
      });
      // A body changed after signing (its digest no longer matches).
      const changed = await sign(
        signer,
        target,
        key,
        { method: 'POST', path: `/events/${event.id}/questions`, body: { body: 'original' } },
        { keyid },
      );
      expect(await problem(await send(target, changed, JSON.stringify({ body: 'changed' })))).toEqual({
        status: 401,
        code: 'auth.signature_invalid',
      });
      // Expired.
      const stale = await sign(
        signer,
        target,
        key,
        { method: 'GET', path: `/events/${event.id}/rsvp` },
        {
          keyid,
          created: new Date(Date.now() - 120_000),
        },
      );
      expect(await problem(await send(target, stale))).toEqual({
        status: 401,
        code: 'auth.timestamp_out_of_window',
      });
      // The package's default coverage: @authority only, refused with what is needed.
      const thin = await sign(
        signer,
        target,
        key,
        { method: 'PUT', path: '/directory/me', body: card },
        {
          keyid,
          components: 'default',
        },
      );
      const thinAnswer = await send(target, thin);
      expect(await problem(thinAnswer)).toEqual({ status: 401, code: 'auth.components_missing' });
      expect(thinAnswer.headers.get('accept-signature')).toBe(
        'sig1=("@method" "@authority" "@path" "@query" "content-digest");created;expires;nonce;keyid;alg="ed25519"',
      );
      // Nothing the refusals carried was written.
      const questions = await host.questions.list(event.id);
      expect(questions.items.map((q) => q.body)).toEqual(['Who signed this?']);
    },
  );

  it("the SDK signs every call by RFC 9421 when asked: a host's event, an RSVP, a question and the agent's tickets", async () => {
    const client = () => {
      const { baseUrl, audience } = target.client();
      return new AgentClient({ baseUrl, audience, signatureScheme: 'rfc9421' });
    };
    const [host, agent, stranger] = [client(), client(), client()];
    const event = await host.events.create(anEvent());
    await agent.tickets.rsvp(event.id);
    await host.events.start(event.id);
    const question = await agent.questions.submit(event.id, 'Signed the other way?');
    expect(question.authorId).toBe(agent.agentId);
    // Verified as the stranger it is: its own key, refused by the rules, not by the signature.
    const refused = await stranger.questions
      .submit(event.id, 'not mine to ask')
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TownhallError);
    expect((refused as TownhallError).status).toBe(403);
  });

  /** A new key whose thumbprint does, or does not, also read as an agentId (base58 of 32 bytes). */
  function strangerWhoseThumbprint(readsAsAgentId: boolean): AgentKey {
    for (;;) {
      const key = generateAgentKey();
      const thumbprint = agentKeyThumbprint(key.agentId);
      let decodes: boolean;
      try {
        decodes = /^[1-9A-HJ-NP-Za-km-z]+$/.test(thumbprint) && decodeAgentId(thumbprint).length === 32;
      } catch {
        decodes = false;
      }
      if (decodes === readsAsAgentId) return key;
    }
  }

  const putCard = (stranger: AgentKey, headers: Record<string, string> = {}) =>
    sign(
      'web-bot-auth',
      target,
      stranger,
      {
        method: 'PUT',
        path: '/directory/me',
        body: { handle: `s${randomBytes(4).toString('hex')}`, displayName: 'Bot' },
      },
      { headers },
    );

  it('resolves a thumbprint through a Signature-Agent directory, once; an unknown one is auth.key_unknown', async () => {
    const stranger = strangerWhoseThumbprint(false);
    const unknown = await send(target, await putCard(stranger));
    const refusal = await problem(unknown.clone());
    expect(refusal).toEqual({ status: 401, code: 'auth.key_unknown' });
    expect(((await unknown.json()) as { detail: string }).detail).toMatch(/send the agentId/);

    const directory = await keyDirectory([generateAgentKey(), stranger]);
    try {
      const agent = { 'signature-agent': `"${directory.origin}"` };
      for (let i = 0; i < 3; i++) {
        const answer = await send(target, await putCard(stranger, agent));
        expect(answer.status).toBe(i === 0 ? 201 : 200);
        expect(((await answer.json()) as { agentId: string }).agentId).toBe(stranger.agentId);
      }
      expect(directory.requests()).toBe(1);
    } finally {
      directory.server.close();
    }
  });

  it('takes a thumbprint that also reads as an agentId as a thumbprint once it fails as an agentId', async () => {
    const stranger = strangerWhoseThumbprint(true);
    const unknown = await send(target, await putCard(stranger));
    const refusal = (await unknown.json()) as { code: string; detail: string };
    expect(['auth.signature_invalid', 'auth.agent_invalid']).toContain(refusal.code);
    expect(refusal.detail).toMatch(/as a key thumbprint/);

    const directory = await keyDirectory([stranger]);
    try {
      const answer = await send(
        target,
        await putCard(stranger, { 'signature-agent': `"${directory.origin}"` }),
      );
      expect(answer.status).toBe(201);
      expect(((await answer.json()) as { agentId: string }).agentId).toBe(stranger.agentId);
    } finally {
      directory.server.close();
    }
  });
});
