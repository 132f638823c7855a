import { readFileSync } from 'node:fs';
import { credsAuthenticator, nkeyAuthenticator, type ConnectionOptions } from '@nats-io/transport-node';
import type { BusApp } from '@townhall/contracts';
import { ConfigError, natsServers } from './config.js';
import { inboxPrefixOf } from './nats-authorization.js';

/** The NATS settings of BaseConfigSchema an app connects with. */
export interface NatsConnectionSettings {
  NATS_URL: string;
  NATS_USER?: string | undefined;
  NATS_PASSWORD?: string | undefined;
  NATS_NKEY_SEED?: string | undefined;
  NATS_CREDS_FILE?: string | undefined;
  NATS_TLS_CA_FILE?: string | undefined;
  NATS_TLS_CERT_FILE?: string | undefined;
  NATS_TLS_KEY_FILE?: string | undefined;
}

/**
 * How `app` connects to NATS, for every connection it opens (its requests and JetStream, Nest's
 * for the requests it serves): every server of NATS_URL, its own credentials (a user and password,
 * an NKey seed, or a creds file: deploymentChecks allows one), TLS required where a `tls://` server
 * or a TLS file asks for it, and its own inbox prefix (the only inbox its NATS user may read).
 * A file that cannot be read fails here, at start, naming its setting.
 */
export function natsConnectionOptions(app: BusApp, settings: NatsConnectionSettings): ConnectionOptions {
  const servers = natsServers(settings.NATS_URL);
  const options: ConnectionOptions = { servers, inboxPrefix: inboxPrefixOf(app) };
  if (settings.NATS_USER !== undefined && settings.NATS_PASSWORD !== undefined) {
    options.user = settings.NATS_USER;
    options.pass = settings.NATS_PASSWORD;
  }
  if (settings.NATS_NKEY_SEED !== undefined)
    options.authenticator = nkeyAuthenticator(new TextEncoder().encode(settings.NATS_NKEY_SEED));
  if (settings.NATS_CREDS_FILE !== undefined)
    options.authenticator = credsAuthenticator(readSetting(settings.NATS_CREDS_FILE, 'NATS_CREDS_FILE'));
  const files = {
    ca: settings.NATS_TLS_CA_FILE,
    cert: settings.NATS_TLS_CERT_FILE,
    key: settings.NATS_TLS_KEY_FILE,
  };
  // The client upgrades to TLS only when the server offers it; a tls:// server or a TLS file makes
  // it a requirement, so that a server (or a man in the middle) that offers none is refused.
  if (servers.some((server) => server.startsWith('tls://')) || Object.values(files).some(Boolean)) {
    options.tls = {
      ...(files.ca === undefined ? {} : { ca: readSetting(files.ca, 'NATS_TLS_CA_FILE').toString() }),
      ...(files.cert === undefined ? {} : { cert: readSetting(files.cert, 'NATS_TLS_CERT_FILE').toString() }),
      ...(files.key === undefined ? {} : { key: readSetting(files.key, 'NATS_TLS_KEY_FILE').toString() }),
    };
  }
  return options;
}

function readSetting(path: string, name: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ConfigError(
      `Invalid configuration:\n  ${name}: cannot read ${path} (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}
