import { DestinationRefused, resolveDestination, type Resolver } from './destination.js';

const closed = { allowPrivate: false, httpsOnly: false };
const production = { allowPrivate: false, httpsOnly: true };
const open = { allowPrivate: true, httpsOnly: false };

/** A resolver that answers from a table and counts what it was asked. */
function resolverOf(table: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(resolve, { asked });
}

const dns = resolverOf({
  'hooks.example.com': ['93.184.215.14'],
  localhost: ['127.0.0.1', '::1'],
  'metadata.example.com': ['169.254.169.254'],
  'split.example.com': ['93.184.215.14', '10.0.0.7'],
  'v6.example.com': ['2606:4700:4700::1111'],
  'mapped.example.com': ['::ffff:192.168.0.1'],
});

const refusal = async (url: string, policy = closed) => {
  try {
    await resolveDestination(url, policy, dns);
  } catch (error) {
    if (error instanceof DestinationRefused) return error.message;
    throw error;
  }
  return 'accepted';
};

describe('resolveDestination', () => {
  it('resolves a public name and pins its address, keeping the name for Host and TLS', async () => {
    const destination = await resolveDestination('https://hooks.example.com:8443/in?x=1', production, dns);
    expect(destination).toMatchObject({
      hostname: 'hooks.example.com',
      address: { address: '93.184.215.14', family: 4 },
    });
    expect(destination.url.host).toBe('hooks.example.com:8443');
    expect((await resolveDestination('http://v6.example.com/', closed, dns)).address.family).toBe(6);
  });

  it('refuses names that resolve inside, however they are written', async () => {
    expect(await refusal('http://localhost:8080/')).toMatch(/localhost resolves to 127\.0\.0\.1: loopback/);
    expect(await refusal('http://metadata.example.com/')).toMatch(/link-local/);
    // One private address among public ones is enough: the name could be steered to it.
    expect(await refusal('https://split.example.com/')).toMatch(/10\.0\.0\.7: private/);
    expect(await refusal('http://mapped.example.com/')).toMatch(/IPv4-mapped/);
    // Literal addresses, as the URL parser normalizes them (decimal, hex, short forms, IPv6).
    for (const url of [
      'http://127.0.0.1/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://127.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:a00:1]/',
      'http://[fe80::1]/',
      'http://[fd00::1]:9000/',
      'http://100.64.1.1/',
      'http://0.0.0.0/',
    ])
      expect([url, await refusal(url)]).toEqual([
        url,
        expect.stringMatching(/addresses are not delivered to$/),
      ]);
    expect(dns.asked).not.toContain('2130706433');
  });

  it('refuses a name that does not resolve, and another scheme', async () => {
    expect(await refusal('https://nowhere.example.com/')).toMatch(/does not resolve \(ENOTFOUND\)/);
    expect(await refusal('ftp://hooks.example.com/')).toMatch(/http\(s\)/);
  });

  it('wants https in production', async () => {
    expect(await refusal('http://hooks.example.com/', production)).toBe('must be an https URL');
    expect(await refusal('https://hooks.example.com/', production)).toBe('accepted');
  });

  it('takes any address with WEBHOOK_ALLOW_PRIVATE=true', async () => {
    expect(await refusal('http://localhost:8080/', open)).toBe('accepted');
    expect(await refusal('http://127.0.0.1:9/', open)).toBe('accepted');
    expect(await refusal('http://[::1]:9/', open)).toBe('accepted');
  });
});

describe('resolveDestination, a resolver that does not answer', () => {
  it('refuses the name once the time is up', async () => {
    const never: Resolver = () => new Promise(() => undefined);
    const started = Date.now();
    await expect(resolveDestination('https://slow.example.com/', closed, never, 100)).rejects.toThrow(
      'slow.example.com does not resolve (ETIMEOUT)',
    );
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
