import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config.js';
import { natsConnectionOptions } from './nats-connection.js';

const folder = mkdtempSync(join(tmpdir(), 'nats-connection-'));
const file = (name: string, text: string) => {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
};

describe('natsConnectionOptions: how an app reaches NATS', () => {
  it('as its user, with every server of NATS_URL and an inbox of its own', () => {
    const options = natsConnectionOptions('ticketing', {
      NATS_URL: 'nats://a:4222, nats://b:4222',
      NATS_USER: 'ticketing',
      NATS_PASSWORD: 'p0',
    });
    expect(options).toEqual({
      servers: ['nats://a:4222', 'nats://b:4222'],
      inboxPrefix: '_INBOX_ticketing',
      user: 'ticketing',
      pass: 'p0',
    });
    expect(options.tls).toBeUndefined();
  });

  it('with an NKey seed or a creds file, through the client authenticator', () => {
    const seed = natsConnectionOptions('events', {
      NATS_URL: 'nats://a:4222',
      NATS_NKEY_SEED: `SU${'A'.repeat(56)}`,
    });
    expect(typeof seed.authenticator).toBe('function');
    expect(seed.user).toBeUndefined();
    const creds = natsConnectionOptions('events', {
      NATS_URL: 'nats://a:4222',
      NATS_CREDS_FILE: file('app.creds', '-----BEGIN NATS USER JWT-----\nx\n------END NATS USER JWT------\n'),
    });
    expect(typeof creds.authenticator).toBe('function');
  });

  it('requires TLS where a tls:// server or a TLS file asks for it, and reads the files', () => {
    expect(natsConnectionOptions('events', { NATS_URL: 'tls://a:4222' }).tls).toEqual({});
    const mutual = natsConnectionOptions('events', {
      NATS_URL: 'nats://a:4222',
      NATS_TLS_CA_FILE: file('ca.pem', 'CA'),
      NATS_TLS_CERT_FILE: file('cert.pem', 'CERT'),
      NATS_TLS_KEY_FILE: file('key.pem', 'KEY'),
    });
    expect(mutual.tls).toEqual({ ca: 'CA', cert: 'CERT', key: 'KEY' });
  });

  it('a file that cannot be read is a ConfigError naming its setting', () => {
    expect(() =>
      natsConnectionOptions('events', {
        NATS_URL: 'nats://a:4222',
        NATS_CREDS_FILE: join(folder, 'missing.creds'),
      }),
    ).toThrow(ConfigError);
    expect(() =>
      natsConnectionOptions('events', {
        NATS_URL: 'tls://a:4222',
        NATS_TLS_CA_FILE: join(folder, 'missing.pem'),
      }),
    ).toThrow(/NATS_TLS_CA_FILE: cannot read/);
  });
});
