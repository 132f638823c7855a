import { createHash, createPrivateKey, sign as cryptoSign } from 'node:crypto';
import { httpbis } from 'http-message-signatures';
import { signatureHeaders } from 'web-bot-auth';
import { Ed25519Signer } from 'web-bot-auth/crypto';
import { AuthError, type AuthFailureCode } from '../errors.js';
import { base64UrlEncode } from '../base64url.js';
import { generateAgentKey, type AgentKey } from '../signer.js';
import { SignatureVerifier, type VerifiedRequest } from '../verifier.js';
import { agentKeyThumbprint } from './jwk.js';
import { acceptSignatureValue } from './profile.js';

// The signing side of every test here is an official package, with no code of this project.
const AUDIENCE = 'https://api.example.com';
const key = generateAgentKey();
const COMPONENTS = ['@method', '@authority', '@path', '@query', 'content-digest'];

interface WireRequest {
  method: string;
  target: string;
  body: string;
  headers: Record<string, string | string[]>;
}

function privateJwk(agent: AgentKey): JsonWebKey {
  return {
    kty: 'OKP',
    crv: 'Ed25519',
    x: base64UrlEncode(agent.publicKey),
    d: base64UrlEncode(agent.secretKey),
  };
}

function digestOf(body: string, algorithm: 'sha256' | 'sha512' = 'sha256'): string {
  const name = algorithm === 'sha256' ? 'sha-256' : 'sha-512';
  return `${name}=:${createHash(algorithm).update(body).digest('base64')}:`;
}

async function webBotAuth(
  options: {
    method?: string;
    target?: string;
    body?: string;
    components?: string[] | undefined;
    created?: Date;
    expires?: Date;
    nonce?: string;
    agent?: AgentKey;
  } = {},
): Promise<WireRequest> {
  const method = options.method ?? 'POST';
  const target = options.target ?? '/events/e1/questions';
  const body = options.body ?? (method === 'GET' ? '' : '{"text":"Why?"}');
  const headers: Record<string, string> = body === '' ? {} : { 'content-digest': digestOf(body) };
  const signer = await Ed25519Signer.fromJWK(privateJwk(options.agent ?? key));
  const created = options.created ?? new Date();
  const signed = await signatureHeaders({ method, url: `${AUDIENCE}${target}`, headers }, signer, {
    created,
    expires: options.expires ?? new Date(created.getTime() + 60_000),
    ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
    ...(options.components === undefined ? {} : { components: options.components }),
  });
  return {
    method,
    target,
    body,
    headers: { ...headers, 'signature-input': signed['Signature-Input'], signature: signed.Signature },
  };
}

async function messageSignatures(
  options: {
    method?: string;
    target?: string;
    body?: string;
    fields?: string[];
    keyid?: string;
    agent?: AgentKey;
  } = {},
): Promise<WireRequest> {
  const method = options.method ?? 'PUT';
  const target = options.target ?? '/directory/me';
  const body = options.body ?? '{"handle":"alice","displayName":"Alice"}';
  const privateKey = createPrivateKey({ key: privateJwk(options.agent ?? key) as never, format: 'jwk' });
  const headers: Record<string, string> = body === '' ? {} : { 'content-digest': digestOf(body, 'sha512') };
  const signed = await httpbis.signMessage(
    {
      key: {
        id: options.keyid ?? key.agentId,
        alg: 'ed25519',
        sign: async (data) => cryptoSign(null, data, privateKey),
      },
      fields: options.fields ?? (body === '' ? COMPONENTS.slice(0, 4) : COMPONENTS),
      params: ['created', 'expires', 'nonce', 'keyid', 'alg'],
      paramValues: { nonce: base64UrlEncode(crypto.getRandomValues(new Uint8Array(32))) },
    },
    { method, url: `${AUDIENCE}${target}`, headers },
  );
  const lowerCase = Object.entries(signed.headers).map(([name, value]) => [name.toLowerCase(), value]);
  return { method, target, body, headers: Object.fromEntries(lowerCase) as WireRequest['headers'] };
}

function lines(value: string | string[] | undefined): string[] | undefined {
  return value === undefined ? undefined : Array.isArray(value) ? value : [value];
}

/** The gateway's two phases; a thumbprint keyid resolves to `key` (an agent this service has seen). */
function verify(
  request: WireRequest,
  options: { nowMs?: number; verifier?: SignatureVerifier } = {},
): VerifiedRequest {
  const verifier = options.verifier ?? new SignatureVerifier();
  const header = (name: string) => lines(request.headers[name]);
  const pending = verifier.precheckMessageSignature({
    signatureInput: header('signature-input'),
    signature: header('signature'),
    header,
    hasBody: request.body !== '',
    method: request.method,
    rawUrl: request.target,
    nowMs: options.nowMs ?? Date.now(),
  });
  const { signature } = pending;
  const agentId = signature.keyidIsAgentId
    ? signature.keyid
    : signature.keyid === agentKeyThumbprint(key.agentId)
      ? key.agentId
      : 'unknown';
  return verifier.verifyMessageSignature(pending, Buffer.from(request.body, 'utf8'), AUDIENCE, agentId);
}

function failure(request: WireRequest, options: { nowMs?: number } = {}): AuthFailureCode | 'ok' {
  try {
    verify(request, options);
    return 'ok';
  } catch (error) {
    if (error instanceof AuthError) return error.code;
    throw error;
  }
}

describe('RFC 9421 signatures from web-bot-auth', () => {
  it('verifies a signed write covering the profile, keyid the JWK thumbprint', async () => {
    const request = await webBotAuth({ components: COMPONENTS });
    expect(verify(request).agentId).toBe(key.agentId);
  });

  it('verifies a signed read with a query, and one without (its empty @query)', async () => {
    const reads = [
      await webBotAuth({ method: 'GET', target: '/events?limit=5', components: COMPONENTS.slice(0, 4) }),
      await webBotAuth({ method: 'GET', target: '/directory/me', components: COMPONENTS.slice(0, 4) }),
    ];
    for (const read of reads) expect(verify(read).agentId).toBe(key.agentId);
  });

  it('refuses its default signature (@authority only) as components_missing', async () => {
    expect(failure(await webBotAuth())).toBe('auth.components_missing');
    expect(acceptSignatureValue(true)).toContain('"content-digest"');
  });

  it('refuses a write whose digest is not covered, and a body changed after signing', async () => {
    expect(failure(await webBotAuth({ components: COMPONENTS.slice(0, 4) }))).toBe('auth.components_missing');
    const changed = await webBotAuth({ components: COMPONENTS });
    expect(failure({ ...changed, body: '{"text":"Why not?"}' })).toBe('auth.signature_invalid');
  });

  it('refuses an expired signature, one created in the future, and one longer than 300 s', async () => {
    const past = new Date(Date.now() - 120_000);
    expect(
      failure(
        await webBotAuth({
          components: COMPONENTS,
          created: past,
          expires: new Date(past.getTime() + 60_000),
        }),
      ),
    ).toBe('auth.timestamp_out_of_window');
    const later = new Date(Date.now() + 60_000);
    expect(failure(await webBotAuth({ components: COMPONENTS, created: later }))).toBe(
      'auth.timestamp_out_of_window',
    );
    const now = new Date();
    expect(
      failure(
        await webBotAuth({
          components: COMPONENTS,
          created: now,
          expires: new Date(now.getTime() + 301_000),
        }),
      ),
    ).toBe('auth.malformed');
  });

  it('refuses a signature made with another key', async () => {
    const other = await messageSignatures({ agent: generateAgentKey() });
    expect(failure(other)).toBe('auth.signature_invalid');
  });
});

describe('RFC 9421 signatures from http-message-signatures', () => {
  it('verifies a PUT with a sha-512 digest, keyid the agentId', async () => {
    expect(verify(await messageSignatures()).agentId).toBe(key.agentId);
  });

  it('verifies a read with no query (`?`) and with @target-uri for authority, path and query', async () => {
    expect(
      verify(await messageSignatures({ method: 'GET', target: '/directory/me', body: '' })).agentId,
    ).toBe(key.agentId);
    const byTarget = await messageSignatures({ fields: ['@method', '@target-uri', 'content-digest'] });
    expect(verify(byTarget).agentId).toBe(key.agentId);
  });

  it('refuses a signature over another path, method or audience', async () => {
    const signed = await messageSignatures();
    expect(failure({ ...signed, target: '/directory/me?x=1' })).toBe('auth.signature_invalid');
    expect(failure({ ...signed, method: 'POST' })).toBe('auth.signature_invalid');
    const verifier = new SignatureVerifier();
    const header = (name: string) => lines(signed.headers[name]);
    const pending = verifier.precheckMessageSignature({
      signatureInput: header('signature-input'),
      signature: header('signature'),
      header,
      hasBody: true,
      method: 'PUT',
      rawUrl: signed.target,
      nowMs: Date.now(),
    });
    expect(() =>
      verifier.verifyMessageSignature(
        pending,
        Buffer.from(signed.body),
        'https://staging.example.com',
        key.agentId,
      ),
    ).toThrow(/does not match/);
  });
});

describe('hostile RFC 9421 headers', () => {
  const now = Math.floor(Date.now() / 1000);
  const sig = `sig1=:${Buffer.alloc(64, 1).toString('base64')}:`;
  const input = (params: string, components = '"@method" "@authority" "@path" "@query"') =>
    `sig1=(${components});created=${now};expires=${now + 60};nonce="${'A'.repeat(32)}";keyid="${key.agentId}"${params}`;
  const read = (
    signatureInput: string | string[],
    signature: string | string[] = sig,
    extra: Record<string, string> = {},
  ) => ({
    method: 'GET',
    target: '/events',
    body: '',
    headers: { 'signature-input': signatureInput, signature, ...extra },
  });

  it.each([
    ['NUL in Signature-Input', read(input(';x="\0"')), 'auth.malformed'],
    ['not a dictionary', read('(((('), 'auth.malformed'],
    ['a huge integer', read(input('').replace(/created=\d+/, 'created=9999999999999999')), 'auth.malformed'],
    ['created negative', read(input('').replace(/created=\d+/, 'created=-1')), 'auth.malformed'],
    ['created a string', read(input('').replace(/created=\d+/, 'created="now"')), 'auth.malformed'],
    ['no nonce', read(input('').replace(/;nonce="A+"/, '')), 'auth.components_missing'],
    ['a short nonce', read(input('').replace(/A{32}/, 'AAAA')), 'auth.malformed'],
    ['no keyid', read(input('').replace(/;keyid="[^"]+"/, '')), 'auth.components_missing'],
    [
      'keyid neither agentId nor thumbprint',
      read(input('').replace(key.agentId, 'me@example')),
      'auth.key_unknown',
    ],
    ['another algorithm only', read(input(';alg="rsa-pss-sha512"')), 'auth.components_missing'],
    ['another tag only', read(input(';tag="other"')), 'auth.components_missing'],
    [
      'a component with parameters',
      read(input('', '"@method" "@authority" "@path" "@query" "x";sf')),
      'auth.malformed',
    ],
    [
      '@query-param',
      read(input('', '"@method" "@authority" "@path" "@query" "@query-param"')),
      'auth.malformed',
    ],
    [
      'a component twice',
      read(input('', '"@method" "@method" "@authority" "@path" "@query"')),
      'auth.malformed',
    ],
    [
      'an absent covered field',
      read(input('', '"@method" "@authority" "@path" "@query" "x-absent"')),
      'auth.malformed',
    ],
    ['no Signature', { ...read(input('')), headers: { 'signature-input': input('') } }, 'auth.malformed'],
    [
      'a signature under another label',
      read(input(''), `sig2=:${Buffer.alloc(64).toString('base64')}:`),
      'auth.malformed',
    ],
    [
      'a 63-byte signature',
      read(input(''), `sig1=:${Buffer.alloc(63).toString('base64')}:`),
      'auth.signature_invalid',
    ],
    ['a token for a signature', read(input(''), 'sig1=abc'), 'auth.malformed'],
    [
      'an unsigned Signature-Agent',
      read(input(''), sig, { 'signature-agent': '"https://agent.example"' }),
      'auth.components_missing',
    ],
    ['a forged signature', read(input('')), 'auth.signature_invalid'],
  ])('%s', (_name, request, code) => {
    expect(failure(request)).toBe(code);
  });

  it('takes the first signature that is ours among several', async () => {
    const ours = await messageSignatures({ method: 'GET', target: '/events', body: '' });
    const theirs = `other=("@authority");created=${now};keyid="rsa";alg="rsa-pss-sha512"`;
    const request = {
      ...ours,
      headers: {
        ...ours.headers,
        'signature-input': [theirs, String(ours.headers['signature-input'])],
        signature: [`other=:${Buffer.alloc(256).toString('base64')}:`, String(ours.headers['signature'])],
      },
    };
    expect(verify(request).agentId).toBe(key.agentId);
  });
});
