// The NATS authorization that ships (k8s/nats-authorization.conf, and the same text in the Helm
// values) is the one the code declares (BUS_ACCESS, libs/contracts), and nats-server takes it:
// with every app's password in its environment, and not without one.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { BUS_APPS } from '@townhall/contracts';
import { natsAuthorizationConf, natsPasswordVariable, newNatsPassword } from '@townhall/platform';
import { compileCacheEnv, NATS_AUTHORIZATION_CONF, REPO_ROOT } from '@townhall/testing';

const REGENERATE = 'run `npm run nats:authorization` to write it again from libs/contracts/src/bus-access.ts';

interface NatsValues {
  config: { merge: Record<string, unknown> };
  configMap: { merge: { data: Record<string, string> } };
  container: { env: Record<string, { valueFrom: { secretKeyRef: { name: string; key: string } } }> };
}

const values = parse(readFileSync(join(REPO_ROOT, 'k8s/nats-values.yaml'), 'utf8')) as NatsValues;

/** nats-server's own configuration test (`-t`) of the include, with `env` as its environment. */
function testConfiguration(env: Record<string, string>): { status: number | null; output: string } {
  const run = spawnSync('nats-server', ['-c', NATS_AUTHORIZATION_CONF, '-t'], {
    env: { PATH: process.env['PATH'] ?? '', ...compileCacheEnv(), ...env },
    encoding: 'utf8',
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('the NATS authorization that ships', () => {
  it('k8s/nats-authorization.conf is what BUS_ACCESS declares', () => {
    const shipped = readFileSync(NATS_AUTHORIZATION_CONF, 'utf8');
    expect({ file: shipped, hint: REGENERATE }).toEqual({ file: natsAuthorizationConf(), hint: REGENERATE });
  });

  it('the Helm values include the same text, with each password from the Secret townhall-nats', () => {
    const included = values.config.merge['00$include'];
    expect(included).toBe('townhall-authorization.conf');
    expect(values.configMap.merge.data[included as string]).toBe(natsAuthorizationConf());
    expect(Object.keys(values.container.env).sort()).toEqual(BUS_APPS.map(natsPasswordVariable).sort());
    for (const app of BUS_APPS)
      expect(values.container.env[natsPasswordVariable(app)]?.valueFrom.secretKeyRef).toEqual({
        name: 'townhall-nats',
        key: app,
      });
  });

  it('nats-server takes it with every password set, and refuses to start without one, naming it', () => {
    const passwords = Object.fromEntries(
      BUS_APPS.map((app) => [natsPasswordVariable(app), newNatsPassword()]),
    );
    const accepted = testConfiguration(passwords);
    expect(accepted.output).toMatch(/configuration file .* is valid/);
    expect(accepted.status).toBe(0);
    const { [natsPasswordVariable('webhooks')]: _missing, ...withoutOne } = passwords;
    const refused = testConfiguration(withoutOne);
    expect(refused.status).not.toBe(0);
    expect(refused.output).toContain(natsPasswordVariable('webhooks'));
  });
});
