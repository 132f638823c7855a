import { DomainError } from '@townhall/contracts';
import { idempotencyKeyOf, isKeptStatus, requestFingerprint } from './idempotency-key.js';

const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof DomainError ? error.code : String(error);
  }
};

describe('the Idempotency-Key header', () => {
  it('is optional, and taken as sent: 1 to 255 printable ASCII characters', () => {
    expect(idempotencyKeyOf(undefined)).toBeUndefined();
    for (const key of ['a', 'k'.repeat(255), '8e03978e-40d5-43e8-bc93-6894a57f9324', '"quoted"', 'a b ~ {}'])
      expect(idempotencyKeyOf([key])).toBe(key);
  });

  it('is 400 idempotency.key_invalid when empty, too long, outside printable ASCII or repeated', () => {
    for (const lines of [
      [''],
      ['k'.repeat(256)],
      ['caf\u00e9'],
      ['tab\t'],
      ['nul\u0000'],
      ['del\u007f'],
      ['a', 'b'],
      [],
    ])
      expect([lines, codeOf(() => idempotencyKeyOf(lines))]).toEqual([lines, 'idempotency.key_invalid']);
  });
});

describe('the fingerprint of a request', () => {
  const body = Buffer.from('{"title":"AMA"}');
  const base = requestFingerprint('POST', '/events?x=1', body);

  it('is the same for the same method, raw path, raw query and body bytes', () => {
    expect(requestFingerprint('POST', '/events?x=1', Buffer.from('{"title":"AMA"}'))).toBe(base);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs when any of them differs, byte for byte', () => {
    const others = [
      requestFingerprint('PUT', '/events?x=1', body),
      requestFingerprint('POST', '/events/?x=1', body),
      requestFingerprint('POST', '/events?x=2', body),
      requestFingerprint('POST', '/events', body),
      requestFingerprint('POST', '/events?x=1', Buffer.from('{"title": "AMA"}')),
      requestFingerprint('POST', '/events?x=1', Buffer.alloc(0)),
      // The fields are separated: moving bytes from the path into the query is another request.
      requestFingerprint('POST', '/events%3Fx=1', body),
    ];
    expect(new Set([base, ...others]).size).toBe(others.length + 1);
    // An empty query is no query, as in the signing string.
    expect(requestFingerprint('POST', '/events?', body)).toBe(requestFingerprint('POST', '/events', body));
  });
});

describe('which answers are kept for replay', () => {
  it('keeps the answers of operations that happened: 2xx', () => {
    for (const status of [200, 201, 202, 204]) expect(isKeptStatus(status)).toBe(true);
  });

  it('keeps no refusal (they did nothing: a retry is evaluated again) and no 5xx', () => {
    for (const status of [400, 401, 402, 403, 404, 408, 409, 410, 422, 429, 500, 502, 503, 504])
      expect(isKeptStatus(status)).toBe(false);
  });
});
