import { resolveSettings } from './context.js';
import { UsageError } from './failure.js';

describe('resolveSettings', () => {
  it('defaults to localhost:3000 and ~/.townhall/key.json', () => {
    expect(resolveSettings({}, {}, '/home/a')).toEqual({
      url: 'http://localhost:3000',
      keyPath: '/home/a/.townhall/key.json',
      audience: undefined,
      json: false,
    });
  });

  it('takes the environment over the defaults and flags over both', () => {
    const env = {
      TOWNHALL_URL: 'https://env.example/',
      TOWNHALL_KEY: '/keys/env.json',
      TOWNHALL_AUDIENCE: 'https://a',
    };
    expect(resolveSettings({}, env, '/home/a')).toMatchObject({
      url: 'https://env.example',
      keyPath: '/keys/env.json',
      audience: 'https://a',
    });
    expect(
      resolveSettings({ url: 'http://flag:1', key: '~/k.json', json: true }, env, '/home/a'),
    ).toMatchObject({
      url: 'http://flag:1',
      keyPath: '/home/a/k.json',
      json: true,
    });
  });

  it('refuses a URL that is not http(s)', () => {
    expect(() => resolveSettings({ url: 'localhost:3000' }, {}, '/h')).toThrow(UsageError);
    expect(() => resolveSettings({ url: 'not a url' }, {}, '/h')).toThrow('is not a URL');
  });
});
