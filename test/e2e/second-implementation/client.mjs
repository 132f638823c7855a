// A second, independent implementation of service-auth-v1 and x402-ledger-v1, written from
// docs/protocol/signing.md and docs/protocol/payments.md only. It imports nothing but `node:`
// modules (and uses the global fetch): no project code, no npm package.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
} from 'node:crypto';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Base58 (Bitcoin alphabet): the bytes as one big-endian integer, plus one '1' per leading zero byte. */
export function base58Encode(bytes) {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out;
    n /= 58n;
  }
  return '1'.repeat(zeros) + out;
}

// PKCS#8 prefix of a raw 32-byte Ed25519 seed (RFC 8410).
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** An agent from a 32-byte seed (hex or bytes), or a fresh random one. */
export function makeAgent(seed) {
  const privateKey =
    seed === undefined
      ? generateKeyPairSync('ed25519').privateKey
      : createPrivateKey({
          key: Buffer.concat([
            PKCS8_ED25519_PREFIX,
            Buffer.from(seed, typeof seed === 'string' ? 'hex' : undefined),
          ]),
          format: 'der',
          type: 'pkcs8',
        });
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  const publicKey = Buffer.from(jwk.x, 'base64url');
  return { privateKey, publicKey, agentId: base58Encode(publicKey) };
}

export function sha256Hex(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Ed25519 over the UTF-8 bytes of `message`, base58. */
export function signText(agent, message) {
  return base58Encode(sign(null, Buffer.from(message, 'utf8'), agent.privateKey));
}

/** The 9 LF-joined lines of the service-auth-v1 signing string, no trailing LF. */
export function signingString({ audience, method, target, agentId, timestamp, nonce, body }) {
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  const query = q === -1 ? '' : target.slice(q + 1);
  return [
    'service-auth-v1',
    audience,
    method.toUpperCase(),
    path,
    query,
    agentId,
    timestamp,
    nonce,
    sha256Hex(Buffer.from(body ?? '', 'utf8')),
  ].join('\n');
}

/** The Authorization and X-Nonce headers for one request. */
export function signRequest(agent, { audience, method, target, body = '', timestamp, nonce }) {
  const ts = timestamp ?? new Date().toISOString();
  const n = nonce ?? randomBytes(24).toString('base64url');
  const text = signingString({
    audience,
    method,
    target,
    agentId: agent.agentId,
    timestamp: ts,
    nonce: n,
    body,
  });
  return {
    signingString: text,
    authorization: `service ${agent.agentId}:${signText(agent, text)}:${ts}`,
    nonce: n,
  };
}

/**
 * Signs and sends. `body` is a string sent byte for byte; `sendBody` (if given) is sent instead of
 * it, to show that the server refuses a body other than the one signed. Returns status, headers, json.
 */
export async function send(agent, baseUrl, audience, method, target, options = {}) {
  const body = options.body ?? '';
  const signed = options.signed ?? signRequest(agent, { audience, method, target, body });
  const sent = options.sendBody ?? body;
  const headers = { authorization: signed.authorization, 'x-nonce': signed.nonce, ...options.headers };
  if (sent !== '') headers['content-type'] = 'application/json';
  const response = await fetch(baseUrl + target, { method, headers, body: sent === '' ? undefined : sent });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: text === '' ? null : JSON.parse(text),
    signed,
  };
}

/** The x402-ledger-v1 message: 10 LF-joined lines, no trailing LF. */
export function ledgerMessage(network, a) {
  return [
    'x402-ledger-v1',
    network,
    a.from,
    a.to,
    a.value,
    a.asset,
    a.resource,
    a.validAfter,
    a.validBefore,
    a.nonce,
  ].join('\n');
}

/** An X-PAYMENT header value (x402 v1 PaymentPayload, standard base64 of JSON) for one `accepts` entry. */
export function ledgerPayment(agent, requirements, { now = new Date(), nonce } = {}) {
  const seconds = Math.floor(now.getTime() / 1000);
  const authorization = {
    from: agent.agentId,
    to: requirements.payTo,
    value: requirements.maxAmountRequired,
    asset: requirements.asset,
    resource: requirements.resource,
    validAfter: String(seconds - 5),
    validBefore: String(seconds + requirements.maxTimeoutSeconds),
    nonce: nonce ?? randomBytes(32).toString('hex'),
  };
  const signature = signText(agent, ledgerMessage(requirements.network, authorization));
  const payload = {
    x402Version: 1,
    scheme: 'exact',
    network: requirements.network,
    payload: { signature, authorization },
  };
  return { payload, header: Buffer.from(JSON.stringify(payload), 'utf8').toString('base64') };
}
