import { z } from 'zod';
import {
  BaseConfigSchema,
  ConfigError,
  deploymentChecks,
  loadConfig,
  PublicBaseUrlSchema,
  publicBaseUrlOf,
  publicBaseUrlRequired,
} from './config.js';

/** An app's schema as the apps that read PUBLIC_BASE_URL end it: their settings, then the checks across them. */
const AppSchema = BaseConfigSchema.extend({ PUBLIC_BASE_URL: PublicBaseUrlSchema })
  .superRefine(deploymentChecks)
  .superRefine(publicBaseUrlRequired);
const messageOf = (env: NodeJS.ProcessEnv): string => {
  try {
    loadConfig(AppSchema, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return '';
};
const NATS = { NATS_URL: 'nats://127.0.0.1:4222' };
const USER = { NATS_USER: 'events', NATS_PASSWORD: 'p0' };

describe('deploymentChecks: what a deployment may not leave out or mix', () => {
  it.each(['staging', 'production'])(
    'in %s, PUBLIC_BASE_URL is required, and the message says why',
    (environment) => {
      const message = messageOf({ TOWNHALL_ENV: environment, ...NATS, ...USER });
      expect(message).toContain(`PUBLIC_BASE_URL: required when TOWNHALL_ENV=${environment}`);
      expect(message).toContain('audience');
      expect(
        messageOf({
          TOWNHALL_ENV: environment,
          PUBLIC_BASE_URL: 'https://townhall.example',
          ...NATS,
          ...USER,
        }),
      ).toBe('');
    },
  );

  it('in development it may be unset: the gateway on localhost', () => {
    expect(messageOf({})).toBe('');
    expect(publicBaseUrlOf(loadConfig(AppSchema, {}))).toBe('http://localhost:3000');
    expect(publicBaseUrlOf(loadConfig(AppSchema, { PUBLIC_BASE_URL: 'https://a.example/' }))).toBe(
      'https://a.example',
    );
  });

  it('outside development, an app on NATS says who it is', () => {
    const base = { TOWNHALL_ENV: 'production', PUBLIC_BASE_URL: 'https://townhall.example', ...NATS };
    expect(messageOf(base)).toMatch(/NATS_USER: required when TOWNHALL_ENV=production .*its own user/);
    expect(messageOf({ ...base, ...USER })).toBe('');
    expect(messageOf({ ...base, NATS_NKEY_SEED: `SU${'A'.repeat(56)}` })).toBe('');
    expect(messageOf({ ...base, NATS_CREDS_FILE: '/var/run/secrets/nats/app.creds' })).toBe('');
    // Not on NATS (the migrate command, standalone): nothing to say.
    expect(messageOf({ TOWNHALL_ENV: 'production', PUBLIC_BASE_URL: 'https://townhall.example' })).toBe('');
  });

  it('a password with its user, one way to authenticate, a certificate with its key', () => {
    expect(messageOf({ ...NATS, NATS_USER: 'events' })).toContain(
      'NATS_PASSWORD: NATS_USER and NATS_PASSWORD go together',
    );
    expect(messageOf({ ...NATS, NATS_PASSWORD: 'p0' })).toContain(
      'NATS_USER: NATS_USER and NATS_PASSWORD go together',
    );
    expect(messageOf({ ...NATS, ...USER, NATS_CREDS_FILE: '/x.creds' })).toContain('one way to authenticate');
    expect(messageOf({ ...NATS, NATS_TLS_CERT_FILE: '/c.pem' })).toContain(
      'NATS_TLS_KEY_FILE: NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together',
    );
    expect(messageOf({ ...NATS, NATS_NKEY_SEED: 'SUnot-a-seed' })).toMatch(
      /NATS_NKEY_SEED: must be a user NKey seed/,
    );
  });

  it("names a variable that is not set as zod does, and keeps a check's own reason", () => {
    const Required = z.object({ NATS_URL: z.string() });
    expect(() => loadConfig(Required, {})).toThrow('NATS_URL: required, not set');
  });
});
