import { randomInt } from 'node:crypto';
import { Fuzzer, formatFuzzReport, type FuzzOptions, type FuzzReport } from './fuzzer.js';

export { Fuzzer, classKey, formatFuzzReport } from './fuzzer.js';
export type { FailureClass, FailureKind, FuzzFailure, FuzzOptions, FuzzReport } from './fuzzer.js';
export { operationsOf, type FuzzOperation, type OpenApiDoc } from './openapi-operations.js';
export type { FuzzFixtures, SignerRole } from './fixtures.js';
export * from './cursor-properties.js';

/** The defaults keep one topology's run near 30 s on a 2-core machine; see README.md for 10x. */
export const FUZZ_DEFAULTS = { requests: 1_200, seconds: 25 } as const;

export interface FuzzSettings {
  seed: number;
  requests: number;
  timeMs: number;
  only: ReadonlySet<number> | undefined;
  operationFilter: RegExp | undefined;
  reportFile: string | undefined;
}

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new Error(`${name} must be a positive number, got ${value}`);
  return parsed;
}

/** FUZZ_SEED, FUZZ_REQUESTS, FUZZ_SECONDS, FUZZ_ONLY, FUZZ_OPERATION, FUZZ_REPORT. */
export function fuzzSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): FuzzSettings {
  const seedText = env['FUZZ_SEED'];
  const seed = seedText ? Number(seedText) : randomInt(0, 2 ** 31 - 1);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got ${seedText}`);
  const only = env['FUZZ_ONLY']
    ? new Set(env['FUZZ_ONLY'].split(',').map((part) => Number(part.trim())))
    : undefined;
  return {
    seed,
    requests: positive('FUZZ_REQUESTS', env['FUZZ_REQUESTS'], FUZZ_DEFAULTS.requests),
    timeMs: positive('FUZZ_SECONDS', env['FUZZ_SECONDS'], FUZZ_DEFAULTS.seconds) * 1000,
    only,
    operationFilter: env['FUZZ_OPERATION'] ? new RegExp(env['FUZZ_OPERATION']) : undefined,
    reportFile: env['FUZZ_REPORT'] || undefined,
  };
}

/** How long a test running fuzzGateway() with these settings needs: the budget plus fixtures and margin. */
export function fuzzTestTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  return fuzzSettingsFromEnv({ ...env, FUZZ_SEED: '0' }).timeMs + 40_000;
}

/**
 * Fuzzes the gateway at `baseUrl` with the environment's settings: prints the seed first, then
 * the report; writes it as JSON to FUZZ_REPORT if set. The caller asserts on `report.failures`.
 */
export async function fuzzGateway(options: {
  baseUrl: string;
  isAlive: () => boolean;
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** The Solana JSON-RPC of a server that sells on Solana: fixtures pay there, payments are signed for it. */
  solanaRpcUrl?: string;
}): Promise<FuzzReport> {
  const settings = fuzzSettingsFromEnv(options.env);
  options.log(
    `fuzz: seed ${settings.seed} (FUZZ_SEED=${settings.seed} reproduces this run), ` +
      `budget ${settings.requests} requests or ${settings.timeMs / 1000} s`,
  );
  const fuzzOptions: FuzzOptions = {
    baseUrl: options.baseUrl,
    seed: settings.seed,
    requests: settings.requests,
    timeMs: settings.timeMs,
    isAlive: options.isAlive,
    ...(options.solanaRpcUrl ? { fixtures: { solanaRpcUrl: options.solanaRpcUrl } } : {}),
    ...(settings.only ? { only: settings.only } : {}),
    ...(settings.operationFilter ? { operationFilter: settings.operationFilter } : {}),
  };
  const preparing = Date.now();
  const fuzzer = await Fuzzer.prepare(fuzzOptions);
  options.log(
    `fuzz: OpenAPI document read and fixtures created in ${((Date.now() - preparing) / 1000).toFixed(1)} s`,
  );
  const report = await fuzzer.run();
  options.log(formatFuzzReport(report, { everyFailure: report.failures.length <= 200 }));
  if (settings.reportFile) {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      settings.reportFile,
      JSON.stringify(
        {
          ...report,
          coverage: Object.fromEntries(report.coverage),
          statuses: Object.fromEntries(report.statuses),
        },
        null,
        2,
      ),
    );
  }
  return report;
}
