import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { BUS_APPS, type BusApp } from '@townhall/contracts';
import { natsConnectionOptions, natsPasswordVariable, newNatsPassword } from '@townhall/platform';
import { REPO_ROOT } from './app-process.js';

/** The machine's NATS (docs/development.md), without authorization: for tests of the NATS client's use itself. */
export const NATS_URL = process.env['TEST_NATS_URL'] ?? 'nats://127.0.0.1:4222';

/** The authorization every NATS of the tests starts with: the file the deployments include. */
export const NATS_AUTHORIZATION_CONF = join(REPO_ROOT, 'k8s', 'nats-authorization.conf');

/**
 * The apps' NATS users of k8s/nats-authorization.conf, with passwords made for one nats-server (or
 * cluster): its environment names them, each app is given its own, and a test connects as an app
 * to act as that app would (or as a compromised one could).
 */
export class NatsUsers {
  private constructor(private readonly passwords: ReadonlyMap<BusApp, string>) {}

  static generate(): NatsUsers {
    return new NatsUsers(new Map(BUS_APPS.map((app) => [app, newNatsPassword()])));
  }

  /** nats-server's environment: every TOWNHALL_NATS_PASSWORD_<APP> the include reads. */
  serverEnv(): Record<string, string> {
    return Object.fromEntries(BUS_APPS.map((app) => [natsPasswordVariable(app), this.password(app)]));
  }

  /** One app's environment: its NATS_USER and NATS_PASSWORD. */
  appEnv(app: BusApp): Record<string, string> {
    return { NATS_USER: app, NATS_PASSWORD: this.password(app) };
  }

  password(app: BusApp): string {
    const password = this.passwords.get(app);
    if (password === undefined) throw new Error(`no NATS user ${app}`);
    return password;
  }
}

/** A NATS the tests start apps against: its URL (one server, or a cluster's list) and its users. */
export interface TestNats {
  readonly url: string;
  /** Undefined for a nats-server started without authorization (library tests). */
  readonly users: NatsUsers | undefined;
}

/** The environment `app` connects to `nats` with: NATS_URL, and its user where there are users. */
export function natsEnvOf(nats: TestNats, app: BusApp): Record<string, string> {
  return { NATS_URL: nats.url, ...nats.users?.appEnv(app) };
}

/** A connection to `nats` as `app` (its user, its inbox prefix), as that app's own would be. */
export function connectAs(nats: TestNats, app: BusApp): Promise<NatsConnection> {
  const env = natsEnvOf(nats, app);
  return connect(
    natsConnectionOptions(app, {
      NATS_URL: env['NATS_URL']!,
      NATS_USER: env['NATS_USER'],
      NATS_PASSWORD: env['NATS_PASSWORD'],
    }),
  );
}
