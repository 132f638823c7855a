import { spawn } from 'node:child_process';
import { AgentClient } from '@townhall/sdk';
import {
  APPS,
  compileCacheEnv,
  entryPoint,
  freePort,
  problemOf,
  REPO_ROOT,
  StandaloneProcess,
} from '@townhall/testing';

/**
 * Runs an app's entry point (`entryPoint`) with only `env` (and PATH, and Node's compile cache);
 * resolves with its exit code and stderr.
 */
function runApp(app: string, env: Record<string, string>, script = 'main.js', args: string[] = []) {
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [entryPoint(app, script), ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...compileCacheEnv(), ...env },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('configuration: every app checks its environment at start and names what is wrong', () => {
  const apps = [APPS.gateway, ...APPS.services];

  it.each(apps)('%s refuses to start without its servers, naming each missing variable', async (app) => {
    const { code, stderr } = await runApp(app, {});
    expect(code).toBe(78);
    expect(stderr).toMatch(new RegExp(`^${app}: Invalid configuration:`));
    expect(stderr).toContain('NATS_URL: required, not set');
    expect(stderr).toContain(
      app === APPS.gateway ? 'REDIS_URL: required, not set' : 'DATABASE_URL: required, not set',
    );
    expect(stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
  });

  it.each(apps)('%s refuses a malformed value, naming the variable', async (app) => {
    const env = {
      NATS_URL: 'nats://127.0.0.1:1',
      REDIS_URL: 'redis://127.0.0.1:1',
      DATABASE_URL: 'postgres://127.0.0.1:1/x',
      LOG_LEVEL: 'loud',
      SERVICE_TIMEOUT_MS: 'soon',
    };
    const { code, stderr } = await runApp(app, env);
    expect(code).toBe(78);
    expect(stderr).toMatch(/LOG_LEVEL: .+/);
    expect(stderr).toMatch(/SERVICE_TIMEOUT_MS: .+/);
  });

  it.each(APPS.services)('the migrate command of %s needs DATABASE_URL only', async (app) => {
    const { code, stderr } = await runApp(app, {}, 'migrate.js');
    expect(code).toBe(78);
    expect(stderr).toContain('DATABASE_URL: required, not set');
    expect(stderr).not.toContain('NATS_URL');
  });

  it('the gateway checks its own settings too (PORT, PUBLIC_BASE_URL)', async () => {
    const { code, stderr } = await runApp(APPS.gateway, {
      NATS_URL: 'nats://127.0.0.1:1',
      REDIS_URL: 'redis://127.0.0.1:1',
      PORT: '70000',
      PUBLIC_BASE_URL: 'ftp://example.com',
    });
    expect(code).toBe(78);
    expect(stderr).toMatch(/PORT: .+/);
    expect(stderr).toMatch(/PUBLIC_BASE_URL: .+/);
  });

  describe('deployments that could mix with another do not start', () => {
    const servers = {
      NATS_URL: 'nats://127.0.0.1:1',
      REDIS_URL: 'redis://127.0.0.1:1',
      DATABASE_URL: 'postgres://127.0.0.1:1/x',
      NATS_USER: 'someone',
      NATS_PASSWORD: 'p0',
    };

    it.each([
      [APPS.gateway, 'production'],
      [APPS.gateway, 'staging'],
      ['events', 'production'],
      ['ticketing', 'staging'],
    ])('%s in %s without PUBLIC_BASE_URL: exit 78, naming it and why', async (app, environment) => {
      const { code, stderr } = await runApp(app, { ...servers, TOWNHALL_ENV: environment });
      expect(code).toBe(78);
      expect(stderr).toContain(`PUBLIC_BASE_URL: required when TOWNHALL_ENV=${environment}`);
      expect(stderr).not.toMatch(/\n\s+at /);
    });

    it.each(['eip155:8453', 'solanax:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'])(
      'ticketing with X402_NETWORK=%s (a network whose payments it does not read): exit 78, naming it',
      async (network) => {
        const { code, stderr } = await runApp('ticketing', {
          ...servers,
          X402_FACILITATOR: 'http',
          X402_FACILITATOR_URL: 'http://127.0.0.1:1',
          X402_NETWORK: network,
        });
        expect(code).toBe(78);
        expect(stderr).toMatch(/X402_NETWORK: must be ledger:<environment> or solana:<genesis hash>/);
      },
    );

    it('ticketing with an http facilitator on a ledger: network: exit 78, naming X402_NETWORK', async () => {
      const { code, stderr } = await runApp('ticketing', {
        ...servers,
        X402_FACILITATOR: 'http',
        X402_FACILITATOR_URL: 'http://127.0.0.1:1',
        X402_NETWORK: 'ledger:production',
      });
      expect(code).toBe(78);
      expect(stderr).toContain('X402_NETWORK: X402_FACILITATOR=http settles on a solana: network');
    });

    it.each([APPS.gateway, ...APPS.services])(
      '%s in production on NATS without credentials: exit 78, naming NATS_USER',
      async (app) => {
        const { NATS_USER: _user, NATS_PASSWORD: _password, ...anonymous } = servers;
        const { code, stderr } = await runApp(app, {
          ...anonymous,
          TOWNHALL_ENV: 'production',
          PUBLIC_BASE_URL: 'https://townhall.example',
        });
        expect(code).toBe(78);
        expect(stderr).toMatch(/NATS_USER: required when TOWNHALL_ENV=production .*its own user/);
      },
    );

    it('ticketing in production with LEDGER_FAUCET=true: exit 78, naming it', async () => {
      const { code, stderr } = await runApp('ticketing', {
        ...servers,
        TOWNHALL_ENV: 'production',
        PUBLIC_BASE_URL: 'https://townhall.example',
        LEDGER_FAUCET: 'true',
      });
      expect(code).toBe(78);
      expect(stderr).toContain('LEDGER_FAUCET: must not be true when TOWNHALL_ENV=production');
    });

    it('standalone in production with LEDGER_FAUCET=true: exit 78, naming it; without it, no faucet', async () => {
      const production = { TOWNHALL_ENV: 'production' };
      const asked = await runApp(
        'standalone',
        { ...production, PUBLIC_BASE_URL: 'https://townhall.example', LEDGER_FAUCET: 'true' },
        'main.js',
        ['--ephemeral', '--port', '0'],
      );
      expect(asked.code).toBe(78);
      expect(asked.stderr).toContain('LEDGER_FAUCET: must not be true when TOWNHALL_ENV=production');

      const port = await freePort();
      const standalone = await StandaloneProcess.start(
        { ...production, PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
        port,
      );
      try {
        const agent = new AgentClient({ baseUrl: standalone.baseUrl });
        expect(await problemOf(agent.ledger.faucet('1000'))).toMatchObject({
          status: 404,
          code: 'ledger.faucet_disabled',
        });
      } finally {
        await standalone.stop();
      }
    });

    it('standalone in production without PUBLIC_BASE_URL: exit 78, naming it', async () => {
      const { code, stderr } = await runApp('standalone', { TOWNHALL_ENV: 'production' }, 'main.js', [
        '--ephemeral',
        '--port',
        '0',
      ]);
      expect(code).toBe(78);
      expect(stderr).toContain('PUBLIC_BASE_URL: required when TOWNHALL_ENV=production');
    });
  });
});
