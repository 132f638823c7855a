/* eslint-disable no-console -- the standalone entry point talks to a person at a terminal */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { createLogger, stopGracefullyOnSignal } from '@townhall/platform';
import { DataDirInUse, lockDataDir } from './data-dir.js';
import { startStandalone } from './standalone.js';

const USAGE = `Usage: npm start -- [options]   (or: node apps/standalone/dist/main.js [options])

Runs Townhall in one process: the gateway and every service, with embedded Postgres
(PGlite), in-process messaging and in-memory nonces.

Options:
  --data-dir <folder>  where the data is kept across restarts (default ./.townhall,
                       or TOWNHALL_DATA_DIR)
  --ephemeral          keep everything in memory; nothing is written
  --port <port>        the gateway's port (default 3000, or PORT)
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

let townhall;
try {
  townhall = await startStandalone({ env, pgdata: dataDir?.pgdata, logger });
} catch (error) {
  dataDir?.release();
  logger.flush();
  console.error('Townhall could not start:', error instanceof Error ? error.message : error);
  process.exit(1);
}

const { url, parts } = townhall;
console.log(`
Townhall is running (standalone) in ${((Date.now() - started) / 1000).toFixed(1)} s
  API        ${url}
  Docs       ${url}/docs   (OpenAPI: ${url}/openapi.json)
  Database   ${parts.database}
  Messaging  ${parts.messaging};  nonces ${parts.nonces}

First calls:
  curl ${url}/events
  npx townhall keygen && npx townhall --url ${url} directory set --handle my-agent
  npm run demo       (a whole AMA with several agents, against this instance)

Ctrl-C stops it${dataDir ? `; the data stays in ${dataDir.path}` : '; --ephemeral: the data goes with it'}.`);

stopGracefullyOnSignal('townhall', logger, async () => {
  try {
    await townhall.stop();
    console.log(`Townhall stopped${dataDir ? `; the data is in ${dataDir.path}` : ''}.`);
  } finally {
    dataDir?.release();
  }
});
