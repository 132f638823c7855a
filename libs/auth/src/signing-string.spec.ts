import {
  AUTH_SCHEME,
  EMPTY_BODY_SHA256,
  SIGNING_VERSION,
  buildSigningString,
  sha256Hex,
} from './signing-string.js';

describe('buildSigningString', () => {
  it('joins the 9 fields with LF, version first, no trailing LF', () => {
    const s = buildSigningString({
      audience: 'https://api.example.com',
      method: 'POST',
      path: '/events',
      query: 'a=1',
      agentId: 'AGENT',
      timestamp: '2025-01-01T12:00:00.000Z',
      nonce: 'NONCE',
      bodySha256: EMPTY_BODY_SHA256,
    });
    expect(s.split('\n')).toEqual([
      'service-auth-v1',
      'https://api.example.com',
      'POST',
      '/events',
      'a=1',
      'AGENT',
      '2025-01-01T12:00:00.000Z',
      'NONCE',
      EMPTY_BODY_SHA256,
    ]);
    expect(s.endsWith('\n')).toBe(false);
  });

  it('keeps an empty query as an empty line', () => {
    const s = buildSigningString({
      audience: 'a',
      method: 'GET',
      path: '/',
      query: '',
      agentId: 'b',
      timestamp: 't',
      nonce: 'n',
      bodySha256: 'h',
    });
    expect(s).toBe('service-auth-v1\na\nGET\n/\n\nb\nt\nn\nh');
  });

  it('exports the protocol constants', () => {
    expect(AUTH_SCHEME).toBe('service');
    expect(SIGNING_VERSION).toBe('service-auth-v1');
  });
});

describe('sha256Hex', () => {
  it('hashes the empty body to the protocol constant', () => {
    expect(sha256Hex('')).toBe(EMPTY_BODY_SHA256);
    expect(sha256Hex(new Uint8Array(0))).toBe(EMPTY_BODY_SHA256);
  });

  it('hashes strings as UTF-8 and agrees with bytes', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('é')).toBe(sha256Hex(Uint8Array.from([0xc3, 0xa9])));
  });
});
