// Pre-signs requests for a load run: every request gets its own nonce and signature,
// as an agent's would, but the signing is done before the clock starts so the load
// generator measures the service, not itself. node:crypto signs ~10x faster than noble.
import { createPrivateKey, randomBytes, sign, createHash } from 'node:crypto';
import bs58 from 'bs58';
import { agentKeyFromSecret, signMessageRequest } from '@townhall/auth';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export function nodeKey(secretKey) {
  return createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(secretKey)]),
    format: 'der',
    type: 'pkcs8',
  });
}

/** Authorization and X-Nonce for one request (docs/protocol/signing.md). */
export function signedHeaders({ privateKey, agentId, audience, method, target, body = '' }) {
  const [path, query = ''] = target.split(/\?(.*)/s);
  const timestamp = new Date().toISOString();
  const nonce = randomBytes(24).toString('base64url');
  const digest = createHash('sha256').update(body).digest('hex');
  const signingString = [
    'service-auth-v1',
    audience,
    method,
    path,
    query,
    agentId,
    timestamp,
    nonce,
    digest,
  ].join('\n');
  const signature = bs58.encode(sign(null, Buffer.from(signingString), privateKey));
  return { authorization: `service ${agentId}:${signature}:${timestamp}`, 'x-nonce': nonce };
}

const messageKeys = new Map();

/** Signature-Input, Signature (and Content-Digest) for one request: docs/protocol/signing.md section 8. */
export function messageSignedHeaders({ secretKeyHex, audience, method, target, body = '' }) {
  let key = messageKeys.get(secretKeyHex);
  if (!key) messageKeys.set(secretKeyHex, (key = agentKeyFromSecret(Buffer.from(secretKeyHex, 'hex'))));
  const headers = signMessageRequest({ key, method, origin: audience, target, body });
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
