import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { verifyWebhook, WebhookVerificationError } from './webhook-verifier.js';

// A signer written here from the Standard Webhooks spec with node:crypto: the helper under test
// (noble) must accept what any correct v1a producer sends.
function keyPair(): { privateKey: KeyObject; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return { privateKey, publicKey: `whpk_${raw.toString('base64')}` };
}

function delivery(privateKey: KeyObject, body: string, timestamp = Math.floor(Date.now() / 1000)) {
  const id = '0b9a2f55-3c1e-4d7a-9a55-0f3f4f6c2a10';
  const signature = sign(null, Buffer.from(`${id}.${timestamp}.${body}`), privateKey).toString('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1a,${signature}`,
  };
}

const body = JSON.stringify({
  specversion: '1.0',
  id: 'x',
  type: 'townhall.event.started',
  data: { title: 'Ünïcode' },
});

describe('verifyWebhook', () => {
  const { privateKey, publicKey } = keyPair();

  it('returns the CloudEvent of a delivery signed by the key, from a string or the raw bytes', () => {
    const headers = delivery(privateKey, body);
    expect(verifyWebhook(headers, body, publicKey)).toMatchObject({ type: 'townhall.event.started' });
    expect(verifyWebhook(headers, Buffer.from(body), { publicKey })).toMatchObject({ id: 'x' });
    // fetch's Headers, Node's header object (any case), the key without its prefix.
    expect(verifyWebhook(new Headers(headers), body, publicKey).type).toBe('townhall.event.started');
    const shouting = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]),
    );
    expect(verifyWebhook(shouting, body, publicKey.slice('whpk_'.length)).id).toBe('x');
  });

  it('finds its v1a signature among others (a rotation, a symmetric v1)', () => {
    const headers = delivery(privateKey, body);
    const other = delivery(keyPair().privateKey, body)['webhook-signature'];
    const hmac = `v1,${createHmac('sha256', 'secret').update('x').digest('base64')}`;
    const signatures = `${hmac} ${other} ${headers['webhook-signature']}`;
    expect(verifyWebhook({ ...headers, 'webhook-signature': signatures }, body, publicKey).id).toBe('x');
  });

  it('refuses another key, a changed body, id or timestamp, an old delivery, missing headers', () => {
    const headers = delivery(privateKey, body);
    const refuses = (h: Record<string, string>, b: string | Uint8Array, key = publicKey) =>
      expect(() => verifyWebhook(h, b, key)).toThrow(WebhookVerificationError);
    refuses(headers, body, keyPair().publicKey);
    refuses(headers, JSON.stringify(JSON.parse(body), null, 1));
    refuses(headers, `${body} `);
    refuses({ ...headers, 'webhook-id': 'another' }, body);
    refuses({ ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) }, body);
    const old = Math.floor(Date.now() / 1000) - 600;
    refuses(delivery(privateKey, body, old), body);
    expect(
      verifyWebhook(delivery(privateKey, body, old), body, publicKey, { toleranceSeconds: 900 }).id,
    ).toBe('x');
    refuses({ ...headers, 'webhook-signature': 'v1a,not-base64!' }, body);
    refuses({ ...headers, 'webhook-signature': headers['webhook-signature'].replace('v1a', 'v1') }, body);
    const { 'webhook-signature': _dropped, ...unsigned } = headers;
    refuses(unsigned, body);
    refuses(headers, body, 'whpk_c2hvcnQ=');
  });
});
