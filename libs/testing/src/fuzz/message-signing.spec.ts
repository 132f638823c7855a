import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  agentKeyThumbprint,
  generateAgentKey,
  signMessageRequest,
  signRequest,
  SignatureVerifier,
  type AgentKey,
} from '@townhall/auth';
import fc from 'fast-check';
import type { FuzzFixtures } from './fixtures.js';
import { HOSTILE_MESSAGE_SIGNATURES } from './hostile-values.js';
import {
  messageDraft,
  messageSignatureHeaders,
  signDraft,
  type HeaderList,
  type MessageContext,
  type MessagePlan,
  type MessageTamper,
} from './message-signing.js';
import type { FuzzOperation } from './openapi-operations.js';
import { serializeJson } from './raw-json.js';
import { fixtureHint, planRequest, type RequestPlan } from './request-plan.js';
import { parseRawResponse, rawBytes, Wire } from './wire.js';

const AUDIENCE = 'https://api.townhall.test';
const TARGET = '/events/3f2b6c1e-0000-4000-8000-000000000001/questions?limit=5';
const BODY = Buffer.from('{"text":"What does the fuzzer look for?"}', 'utf8');

const keys = {
  host: generateAgentKey(),
  moderator: generateAgentKey(),
  speaker: generateAgentKey(),
  attendee: generateAgentKey(),
  stranger: generateAgentKey(),
};
/** The gateway's seen keys: every agent of the fixtures has signed before the run. */
const seen = new Map(Object.values(keys).map((key) => [agentKeyThumbprint(key.agentId), key.agentId]));

function contextFor(key: AgentKey, body: Uint8Array | undefined, method = 'POST'): MessageContext {
  return {
    key,
    nowSeconds: Math.floor(Date.now() / 1000),
    body,
    otherAgentId: Object.values(keys).find((other) => other.agentId !== key.agentId)!.agentId,
    serviceAuth: () => {
      const signed = signRequest({
        key,
        audience: AUDIENCE,
        method,
        target: TARGET,
        ...(body ? { body } : {}),
      });
      return [
        ['authorization', signed.authorization],
        ['x-nonce', signed.nonce],
      ];
    },
  };
}

/**
 * What the gateway (apps/auth-gateway/src/auth/signed-requests.ts) makes of the headers on a
 * signed route, with the library's verifier: Authorization wins; else RFC 9421, a thumbprint keyid
 * resolved through the seen keys only (no key directory answers here). A CR LF in a value splits
 * it into further lines, as on the wire.
 */
function gatewayAccepts(sent: HeaderList, body: Uint8Array | undefined, method = 'POST'): boolean {
  const headers: HeaderList = [];
  for (const [name, value] of sent) {
    const [first, ...injected] = value.split('\r\n');
    headers.push([name, first!]);
    for (const line of injected) {
      const colon = line.indexOf(':');
      headers.push([line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()]);
    }
  }
  const lines = (name: string) => {
    const values = headers.filter(([key]) => key === name).map(([, value]) => value);
    return values.length > 0 ? values : undefined;
  };
  const verifier = new SignatureVerifier();
  const bytes = body ?? Buffer.alloc(0);
  const nowMs = Date.now();
  try {
    if (lines('authorization')) {
      const pending = verifier.precheck({
        authorization: lines('authorization'),
        nonce: lines('x-nonce'),
        method,
        rawUrl: TARGET,
        nowMs,
      });
      verifier.verify(pending, bytes, AUDIENCE);
      return true;
    }
    if (!lines('signature-input')) return false;
    const pending = verifier.precheckMessageSignature({
      signatureInput: lines('signature-input'),
      signature: lines('signature'),
      header: lines,
      hasBody: bytes.length > 0,
      method,
      rawUrl: TARGET,
      nowMs,
    });
    const { signature } = pending;
    if (!signature.keyidIsAgentId) {
      const agentId = seen.get(signature.keyid);
      if (agentId === undefined) return false;
      verifier.verifyMessageSignature(pending, bytes, AUDIENCE, agentId);
      return true;
    }
    try {
      verifier.verifyMessageSignature(pending, bytes, AUDIENCE, signature.keyid);
    } catch (error) {
      const agentId = signature.keyidIsThumbprint ? seen.get(signature.keyid) : undefined;
      if (agentId === undefined) throw error;
      verifier.verifyMessageSignature(pending, bytes, AUDIENCE, agentId);
    }
    return true;
  } catch {
    return false;
  }
}

function signedWith(
  tamper: MessageTamper | undefined,
  plan: Partial<MessagePlan>,
  body: Uint8Array | undefined,
) {
  const key = tamper?.fresh ? generateAgentKey() : keys.attendee;
  return messageSignatureHeaders(
    { keyid: 'agentId', tag: false, expect: 'any', ...plan, ...(tamper ? { tamper } : {}) },
    { method: 'POST', origin: AUDIENCE, target: TARGET },
    contextFor(key, body),
  );
}

describe('RFC 9421 signatures of the fuzzer', () => {
  it('drafts and signs exactly what signMessageRequest signs', () => {
    const nowSeconds = Math.floor(Date.now() / 1000);
    for (const body of [BODY, undefined])
      for (const keyid of ['agentId', 'thumbprint'] as const)
        for (const tag of [true, false]) {
          const nonce = 'bm9uY2Utb2YtdGhlLWZ1enplci1zcGVj';
          const expected = signMessageRequest({
            key: keys.host,
            method: 'POST',
            origin: AUDIENCE,
            target: TARGET,
            ...(body ? { body } : {}),
            keyid,
            nowMs: nowSeconds * 1000,
            nonce,
            ...(tag ? { tag: 'web-bot-auth' as const } : {}),
          });
          const draft = messageDraft({ keyid, tag }, { key: keys.host, nowSeconds, body }, nonce);
          const headers = signDraft(draft, keys.host, { method: 'POST', origin: AUDIENCE, target: TARGET });
          expect(Object.fromEntries(headers)).toEqual({
            'signature-input': expected['Signature-Input'],
            signature: expected.Signature,
            ...(expected['Content-Digest'] ? { 'content-digest': expected['Content-Digest'] } : {}),
          });
        }
  });

  it('valid-ish signatures verify, by agentId and by a seen thumbprint, tagged or not', () => {
    for (const body of [BODY, undefined])
      for (const keyid of ['agentId', 'thumbprint'] as const)
        for (const tag of [true, false])
          expect(gatewayAccepts(signedWith(undefined, { keyid, tag }, body), body)).toBe(true);
  });

  describe.each(HOSTILE_MESSAGE_SIGNATURES.map((hostile) => [hostile.label, hostile.value] as const))(
    '%s',
    (label, tamper) => {
      const bodies = tamper.needsBody ? [BODY] : [BODY, undefined];
      it(tamper.refused ? 'is refused' : 'verifies (or is refused only for its size)', () => {
        for (const body of bodies)
          for (const keyid of ['agentId', 'thumbprint'] as const) {
            const headers = signedWith(tamper, { keyid }, body);
            expect(headers.length).toBeGreaterThan(0);
            expect(gatewayAccepts(headers, body)).toBe(!tamper.refused);
          }
      });
    },
  );
});

const op = (partial: Partial<FuzzOperation>): FuzzOperation => ({
  operationId: 'op',
  method: 'GET',
  path: '/x',
  pathParams: [],
  queryParams: [],
  headerParams: [],
  body: undefined,
  signed: true,
  write: false,
  ...partial,
});

const OPERATIONS: FuzzOperation[] = [
  op({
    operationId: 'submitQuestion',
    method: 'POST',
    path: '/events/{id}/questions',
    pathParams: [{ name: 'id', required: true, schema: { type: 'string', format: 'uuid' } }],
    body: {
      required: true,
      contentType: 'application/json',
      schema: {
        type: 'object',
        required: ['text'],
        properties: { text: { type: 'string', minLength: 1, maxLength: 280 } },
      },
    },
    write: true,
  }),
  op({
    operationId: 'myTickets',
    path: '/me/tickets',
    queryParams: [
      { name: 'limit', required: false, schema: { type: 'integer' } },
      { name: 'cursor', required: false, schema: { type: 'string' } },
    ],
  }),
  op({ operationId: 'listEvents', path: '/events', signed: false }),
];

const FIXTURES: FuzzFixtures = {
  baseUrl: 'http://127.0.0.1:1',
  audience: AUDIENCE,
  keys,
  handles: ['fuzz_host_a', 'fuzz_attendee_a'],
  events: {
    free: '3f2b6c1e-0000-4000-8000-000000000001',
    tiered: '3f2b6c1e-0000-4000-8000-000000000002',
    single: '3f2b6c1e-0000-4000-8000-000000000003',
    soldOut: '3f2b6c1e-0000-4000-8000-000000000004',
    live: '3f2b6c1e-0000-4000-8000-000000000005',
    past: '3f2b6c1e-0000-4000-8000-000000000006',
  },
  disposableEvents: ['3f2b6c1e-0000-4000-8000-000000000007'],
  protectedEvents: new Set(),
  seriesIds: ['3f2b6c1e-0000-4000-8000-000000000008'],
  questionIds: ['3f2b6c1e-0000-4000-8000-000000000009'],
  pollIds: ['3f2b6c1e-0000-4000-8000-00000000000a'],
  pollOptionIds: ['3f2b6c1e-0000-4000-8000-00000000000b'],
  tierIds: ['general', 'vip'],
  payments: new Map(),
};

function plans(seed: number, count: number, operations = OPERATIONS): RequestPlan[] {
  const context = { fixtures: FIXTURES, hint: fixtureHint(FIXTURES) };
  const arbitrary = fc
    .integer({ min: 0, max: operations.length - 1 })
    .chain((index) => fc.gen().map((g) => planRequest(g, operations[index]!, context)));
  return fc.sample(arbitrary, { seed, numRuns: count });
}

/** The body as Fuzzer.materialise makes it. */
function bodyOf(plan: RequestPlan): Uint8Array | undefined {
  switch (plan.body.kind) {
    case 'json':
      return Buffer.from(serializeJson(plan.body.value), 'utf8');
    case 'text':
      return Buffer.from(plan.body.text, 'utf8');
    case 'bytes':
      return plan.body.bytes;
    case 'none':
      return undefined;
  }
}

describe('plans with RFC 9421 signatures', () => {
  const generated = plans(20_260_421, 4_000);
  const message = generated.filter(
    (plan): plan is RequestPlan & { auth: { kind: 'message'; message: MessagePlan } } =>
      plan.auth.kind === 'message',
  );

  it('are the same for the same seed', () => {
    const again = plans(20_260_421, 4_000);
    expect(again.map((plan) => plan.labels.join('+'))).toEqual(
      generated.map((plan) => plan.labels.join('+')),
    );
  });

  it('sign a share of the valid-ish requests with signMessageRequest, by agentId and thumbprint', () => {
    const valid = message.filter((plan) => !plan.auth.message.tamper);
    expect(valid.some((plan) => plan.auth.message.expect === 'verified')).toBe(true);
    expect(new Set(valid.map((plan) => plan.labels.find((label) => label.startsWith('rfc9421:'))))).toEqual(
      new Set([
        'rfc9421:keyid-agentId',
        'rfc9421:keyid-agentId+web-bot-auth',
        'rfc9421:keyid-thumbprint',
        'rfc9421:keyid-thumbprint+web-bot-auth',
      ]),
    );
    expect(
      valid.filter((plan) => plan.signer === 'fresh').every((plan) => plan.auth.message.keyid === 'agentId'),
    ).toBe(true);
    for (const operation of OPERATIONS) expect(valid.some((plan) => plan.operation === operation)).toBe(true);
  });

  it('use every hostile value of the message-signing aspect', () => {
    // Those that need a body only come with the route that reads one.
    const used = new Set(plans(7, 6_000, [OPERATIONS[0]!]).flatMap((plan) => plan.labels));
    for (const hostile of HOSTILE_MESSAGE_SIGNATURES)
      expect([hostile.label, used.has(hostile.label)]).toEqual([hostile.label, true]);
  });

  it('materialise without throwing and carry the headers', () => {
    for (const plan of message) {
      const key = plan.signer === 'fresh' ? generateAgentKey() : keys[plan.signer];
      const body = bodyOf(plan);
      const headers = messageSignatureHeaders(
        plan.auth.message,
        {
          method: plan.method,
          origin: AUDIENCE,
          target: `${plan.path}${plan.query ? `?${plan.query}` : ''}`,
        },
        contextFor(key, body, plan.method),
      );
      const names = new Set(headers.map(([name]) => name));
      const { tamper } = plan.auth.message;
      if (!tamper) {
        expect(names).toEqual(
          new Set(['signature-input', 'signature', ...(body && body.length > 0 ? ['content-digest'] : [])]),
        );
      } else {
        expect(names.has('signature-input') || names.has('signature')).toBe(true);
        if (tamper.needsBody) expect(body?.length).toBeGreaterThan(0);
        if (tamper.fresh) expect(plan.signer).toBe('fresh');
        expect(plan.auth.message.expect).toBe(tamper.refused ? 'refused' : 'any');
      }
    }
  });
});

describe('wire: header values node:http will not send', () => {
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      const body = JSON.stringify({ value: request.headers['x-fuzz'] ?? null });
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      response.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('writes latin1 as single bytes, anything above as UTF-8, a lone surrogate as WTF-8', () => {
    expect([...rawBytes('a\u00e9\u20ac\ud800\ud83d\ude00')]).toEqual([
      0x61, 0xe9, 0xe2, 0x82, 0xac, 0xed, 0xa0, 0x80, 0xf0, 0x9f, 0x98, 0x80,
    ]);
  });

  it('parses a raw answer by content-length and chunked', () => {
    const plain = parseRawResponse(
      Buffer.from(
        'HTTP/1.1 401 Unauthorized\r\ncontent-type: application/problem+json\r\ncontent-length: 2\r\n\r\n{}',
      ),
      false,
    );
    expect(plain).toMatchObject({ status: 401, contentType: 'application/problem+json', body: '{}' });
    const chunked = parseRawResponse(
      Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n'),
      false,
    );
    expect(chunked).toMatchObject({ status: 200, body: '{}' });
    expect(
      parseRawResponse(Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n{}'), false),
    ).toBeUndefined();
    // A live stream, chunked as the gateway sends it: its head is the whole answer.
    const stream = parseRawResponse(
      Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n'),
      false,
    );
    expect(stream).toMatchObject({ status: 200, contentType: 'text/event-stream', body: '' });
  });

  it('sends them on a raw socket', async () => {
    const wire = new Wire(baseUrl, 5_000);
    try {
      const surrogate = await wire.send({ method: 'GET', target: '/', headers: [['x-fuzz', 'a\ud800b']] });
      expect(surrogate.status).toBe(200);
      expect(JSON.parse(surrogate.body)).toEqual({ value: 'a\u00ed\u00a0\u0080b' });
      const nul = await wire.send({ method: 'GET', target: '/', headers: [['x-fuzz', 'a\u0000b']] });
      expect(nul.status).toBe(400);
      const injected = await wire.send({
        method: 'GET',
        target: '/',
        headers: [['x-fuzz', 'a\r\nx-other: 1']],
      });
      expect(JSON.parse(injected.body)).toEqual({ value: 'a' });
    } finally {
      wire.close();
    }
  });
});
