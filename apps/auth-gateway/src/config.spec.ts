import { loadConfig } from '@townhall/platform';
import {
  GatewayConfigSchema,
  LIVE_LIMIT_DEFAULTS,
  liveStreamSettingsOf,
  SERVER_TIMEOUT_DEFAULTS,
  serverTimeoutsOf,
} from './config.js';

describe('gateway configuration: limits of one client', () => {
  it('defaults the live-stream limits and the server timeouts to the documented values', () => {
    const config = loadConfig(GatewayConfigSchema, {});
    expect(config).toMatchObject({
      LIVE_STREAMS_PER_CLIENT: 20,
      LIVE_STREAMS_PER_EVENT: 10_000,
      LIVE_STREAMS_TOTAL: 20_000,
      LIVE_REPLAY_LIMIT: 1_000,
      HTTP_HEADERS_TIMEOUT_MS: 10_000,
      HTTP_REQUEST_TIMEOUT_MS: 30_000,
      HTTP_KEEP_ALIVE_TIMEOUT_MS: 65_000,
      HTTP_IDLE_TIMEOUT_MS: 30_000,
    });
    expect(serverTimeoutsOf(config)).toEqual(SERVER_TIMEOUT_DEFAULTS);
    expect(liveStreamSettingsOf(config)).toEqual({
      heartbeatMs: 15_000,
      clientBuffer: 1_000,
      ...LIVE_LIMIT_DEFAULTS,
    });
  });

  it('reads them from the environment', () => {
    const config = loadConfig(GatewayConfigSchema, {
      LIVE_STREAMS_PER_CLIENT: '0',
      LIVE_STREAMS_PER_EVENT: '3',
      LIVE_STREAMS_TOTAL: '7',
      LIVE_REPLAY_LIMIT: '50',
      HTTP_HEADERS_TIMEOUT_MS: '2000',
      HTTP_REQUEST_TIMEOUT_MS: '2000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '5000',
      HTTP_IDLE_TIMEOUT_MS: '6000',
    });
    expect(liveStreamSettingsOf(config)).toMatchObject({
      streamsPerClient: 0,
      streamsPerEvent: 3,
      streamsTotal: 7,
      replayLimit: 50,
    });
    expect(serverTimeoutsOf(config)).toEqual({
      headersMs: 2_000,
      requestMs: 2_000,
      keepAliveMs: 5_000,
      idleMs: 6_000,
    });
  });

  it('refuses timeouts Node would refuse or that would cut requests waiting for a service', () => {
    expect(() =>
      loadConfig(GatewayConfigSchema, { HTTP_HEADERS_TIMEOUT_MS: '40000', HTTP_REQUEST_TIMEOUT_MS: '30000' }),
    ).toThrow(/HTTP_HEADERS_TIMEOUT_MS: must be at most HTTP_REQUEST_TIMEOUT_MS/);
    expect(() =>
      loadConfig(GatewayConfigSchema, { HTTP_IDLE_TIMEOUT_MS: '5000', SERVICE_TIMEOUT_MS: '5000' }),
    ).toThrow(/HTTP_IDLE_TIMEOUT_MS: must be longer than SERVICE_TIMEOUT_MS/);
    expect(() => loadConfig(GatewayConfigSchema, { LIVE_REPLAY_LIMIT: '0' })).toThrow(/LIVE_REPLAY_LIMIT/);
    expect(() => loadConfig(GatewayConfigSchema, { HTTP_HEADERS_TIMEOUT_MS: '10' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_MS/,
    );
  });
});

describe('gateway configuration: presence snapshots', () => {
  it('reports who is on the live streams every 15 s by default, at most every 100 ms', () => {
    expect(loadConfig(GatewayConfigSchema, {}).PRESENCE_INTERVAL_MS).toBe(15_000);
    expect(loadConfig(GatewayConfigSchema, { PRESENCE_INTERVAL_MS: '100' }).PRESENCE_INTERVAL_MS).toBe(100);
    expect(() => loadConfig(GatewayConfigSchema, { PRESENCE_INTERVAL_MS: '99' })).toThrow(
      /PRESENCE_INTERVAL_MS/,
    );
  });
});

describe('gateway configuration: Signature-Agent key directories', () => {
  const production = { TOWNHALL_ENV: 'production', PUBLIC_BASE_URL: 'https://townhall.example' };

  it('looks directories up by default, on public https origins only', () => {
    expect(loadConfig(GatewayConfigSchema, {})).toMatchObject({
      SIGNATURE_AGENT_DIRECTORIES: true,
      SIGNATURE_AGENT_ALLOW_PRIVATE: false,
    });
    expect(
      loadConfig(GatewayConfigSchema, {
        SIGNATURE_AGENT_DIRECTORIES: 'false',
        SIGNATURE_AGENT_ALLOW_PRIVATE: 'true',
      }),
    ).toMatchObject({ SIGNATURE_AGENT_DIRECTORIES: false, SIGNATURE_AGENT_ALLOW_PRIVATE: true });
    expect(() => loadConfig(GatewayConfigSchema, { SIGNATURE_AGENT_DIRECTORIES: 'yes' })).toThrow(
      /SIGNATURE_AGENT_DIRECTORIES/,
    );
  });

  it('refuses private directory addresses in production', () => {
    expect(loadConfig(GatewayConfigSchema, production).SIGNATURE_AGENT_ALLOW_PRIVATE).toBe(false);
    expect(() =>
      loadConfig(GatewayConfigSchema, { ...production, SIGNATURE_AGENT_ALLOW_PRIVATE: 'true' }),
    ).toThrow(/SIGNATURE_AGENT_ALLOW_PRIVATE: must not be true in production/);
    expect(
      loadConfig(GatewayConfigSchema, {
        ...production,
        TOWNHALL_ENV: 'staging',
        SIGNATURE_AGENT_ALLOW_PRIVATE: 'true',
      }).SIGNATURE_AGENT_ALLOW_PRIVATE,
    ).toBe(true);
  });
});
