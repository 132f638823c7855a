/* eslint-disable no-console -- the standalone entry point talks to a person at a terminal */
import './tracing.js';
import 'reflect-metadata';
import type { Server } from 'node:http';
import { createServer, isIP } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  CONFIG_EXIT_CODE,
  ConfigError,
  createLogger,
  type ReadinessCheck,
  startProbeServer,
  stopGracefullyOnSignal,
} from '@townhall/platform';
import { WebhookSigner } from '@townhall/webhooks/service';
import { ReceiptSigner } from '@townhall/x402/extensions';
import { DataDirInUse, keptSigningKey, lockDataDir } from './data-dir.js';
import { isLoopbackHost, startStandalone } from './standalone.js';

const USAGE = `Usage: npm start -- [options]   (or: node apps/standalone/dist/main.js [options])

Runs Townhall in one process: the gateway and every service, with embedded Postgres
(PGlite), in-process messaging and in-memory nonces.

Options:
  --data-dir <folder>  where the data is kept across restarts (default ./.townhall,
                       or TOWNHALL_DATA_DIR)
  --ephemeral          keep everything in memory; nothing is written
  --port <port>        the gateway's port (default 3000, or PORT)
  --host <address>     the address the gateway and the probe port listen on (default
                       127.0.0.1: this machine only; or HOST). Another address lets other
                       machines in, and then webhooks and Signature-Agent key
                       directories on private addresses are refused (WEBHOOK_ALLOW_PRIVATE
                       and SIGNATURE_AGENT_ALLOW_PRIVATE are true only on a loopback address)
  --probe-port <port>  also serve /healthz, /readyz and Prometheus /metrics on this
                       port, for operators (default none, or PROBE_PORT)
  --solana-local       tickets are paid in USDC on a real Solana runtime in this
                       process (LiteSVM), settled by the official x402 facilitator;
                       its JSON-RPC is on 127.0.0.1:8899 (SOLANA_LOCAL_RPC_PORT), and
                       its state is kept in the data folder
                       (same as X402_FACILITATOR=solana-local; default: the ledger)
  --traces             print every OpenTelemetry span on standard output (to send
                       them to a collector instead: OTEL_EXPORTER_OTLP_ENDPOINT)
  -h, --help           this text

DATABASE_URL, NATS_URL and REDIS_URL switch the matching part to a real server.`;

const started = Date.now();
let args;
try {
  args = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      ephemeral: { type: 'boolean', default: false },
      port: { type: 'string' },
      host: { type: 'string' },
      'probe-port': { type: 'string' },
      'solana-local': { type: 'boolean', default: false },
      traces: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  }).values;
} catch (error) {
  console.error(`${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
if (args.ephemeral && args['data-dir'] !== undefined) {
  console.error('--ephemeral and --data-dir exclude each other');
  process.exit(2);
}

const env = { ...process.env };
if (args.port !== undefined) env['PORT'] = args.port;
// The probe port is bound before the start: the address is settled here, as startStandalone settles it.
const host = args.host ?? (env['HOST'] || '127.0.0.1');
env['HOST'] = host;
if (args['solana-local']) env['X402_FACILITATOR'] = 'solana-local';
const probePortText = args['probe-port'] ?? (env['PROBE_PORT'] || undefined);
let probePort: number | undefined;
if (probePortText !== undefined) {
  probePort = Number(probePortText);
  if (!/^\d+$/.test(probePortText) || probePort > 65535) {
    const name = args['probe-port'] !== undefined ? '--probe-port' : 'PROBE_PORT';
    console.error(`${name} must be a port number from 0 to 65535, not '${probePortText}'`);
    process.exit(2);
  }
}
// A laptop terminal wants the banner and problems, not a JSON line per request.
env['LOG_LEVEL'] ??= 'warn';
const logger = createLogger('townhall', env['LOG_LEVEL'] as 'warn');

const usesServerDatabase = Boolean(env['DATABASE_URL']);
let dataDir: ReturnType<typeof lockDataDir> | undefined;
try {
  if (!args.ephemeral && !usesServerDatabase) {
    dataDir = lockDataDir(args['data-dir'] ?? env['TOWNHALL_DATA_DIR'] ?? '.townhall');
  }
} catch (error) {
  console.error(error instanceof DataDirInUse ? error.message : error);
  process.exit(1);
}
// The local chain keeps its state (accounts, balances, transactions) next to the database.
if (dataDir && env['X402_FACILITATOR'] === 'solana-local')
  env['SOLANA_LOCAL_STATE'] ??= join(dataDir.path, 'solana-local.state');
// Webhooks are signed with a key of the data folder's, unless WEBHOOK_SIGNING_KEY names one.
if (dataDir && !env['WEBHOOK_SIGNING_KEY'])
  env['WEBHOOK_SIGNING_KEY'] = keptSigningKey(
    dataDir.path,
    'webhook-signing-key',
    () => WebhookSigner.generate().secret,
  );
// x402 receipts are signed with a key of the data folder's too, unless RECEIPT_SIGNING_KEY names one.
if (dataDir && !env['RECEIPT_SIGNING_KEY'])
  env['RECEIPT_SIGNING_KEY'] = keptSigningKey(
    dataDir.path,
    'receipt-signing-key',
    () => ReceiptSigner.generate().seed,
  );

// The probe port is taken before the slow start so that a busy one fails at once; /readyz says
// "starting" (503) until every part is up, then runs the same checks as the gateway's /readyz.
const readiness: Record<string, ReadinessCheck> = {
  townhall: () => Promise.reject(new Error('starting')),
};
let probes: Server | undefined;
if (probePort !== undefined) {
  if (probePort !== 0 && !(await isFree(probePort))) {
    console.error(`The probe port ${probePort} is in use: choose another with --probe-port or PROBE_PORT`);
    dataDir?.release();
    process.exit(1);
  }
  // As the gateway: this machine only unless --host says otherwise (its /readyz names each failure).
  probes = await startProbeServer(probePort, readiness, undefined, host);
}

let townhall;
try {
  townhall = await startStandalone({ env, pgdata: dataDir?.pgdata, logger });
  delete readiness['townhall'];
  Object.assign(readiness, townhall.readiness);
} catch (error) {
  probes?.close();
  dataDir?.release();
  logger.flush();
  console.error('Townhall could not start:', error instanceof Error ? error.message : error);
  // A bad configuration exits as every app's does (EX_CONFIG), naming the setting.
  process.exit(error instanceof ConfigError ? CONFIG_EXIT_CODE : 1);
}

// Before the banner, which tells the user Ctrl-C stops it: a signal right after it must find the handler.
stopGracefullyOnSignal('townhall', logger, async () => {
  try {
    await townhall.stop();
    probes?.close();
    console.log(`Townhall stopped${dataDir ? `; the data is in ${dataDir.path}` : ''}.`);
  } finally {
    dataDir?.release();
  }
});

const { url, parts, listening } = townhall;
const local = isLoopbackHost(townhall.host);
const probeAddress = probes?.address();
const probeHost = local ? 'localhost' : isIP(townhall.host) === 6 ? `[${townhall.host}]` : townhall.host;
const probeLine =
  typeof probeAddress === 'object' && probeAddress
    ? `\n  Probes     http://${probeHost}:${probeAddress.port}   (/healthz, /readyz, Prometheus /metrics)`
    : '';
const reach = local
  ? 'this machine only; --host to let others in'
  : 'other machines may connect; webhooks to private addresses are refused';
console.log(`
Townhall is running (standalone) in ${((Date.now() - started) / 1000).toFixed(1)} s
  API        ${url}   (listening on ${listening}: ${reach})
  Docs       ${url}/docs   (OpenAPI: ${url}/openapi.json)${probeLine}
  Database   ${parts.database}
  Messaging  ${parts.messaging};  nonces ${parts.nonces}
  Payments   ${parts.payments}

First calls:
  curl ${url}/events
  npx townhall keygen && npx townhall --url ${url} directory set --handle my_agent
  npm run demo -- --url ${url}   # a whole paid AMA with six agents, against this instance

Ctrl-C stops it${dataDir ? `; the data stays in ${dataDir.path}` : '; --ephemeral: the data goes with it'}.`);

/** Whether nothing listens on the port, on every interface (where the probe server listens). */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}
