// One root jest config, five projects. ESM TypeScript is compiled by @swc/jest with the
// same settings as the build (.swcrc); jest runs native ESM (--experimental-vm-modules).
import { readFileSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Node's compile cache (docs/development.md, "Tests"): jest's workers, and every app, standalone and
// CLI process a test starts (libs/testing compileCacheEnv), compile each module once per change of
// it instead of once per process; an end-to-end run starts some 300 processes of one build. Kept
// under the system's temporary folder unless NODE_COMPILE_CACHE names another (CI: .ci/run), or is
// empty: none.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'townhall-node-compile-cache');
if (process.env.NODE_COMPILE_CACHE) enableCompileCache(process.env.NODE_COMPILE_CACHE);

const swcrc = JSON.parse(readFileSync(new URL('./.swcrc', import.meta.url), 'utf8'));
delete swcrc.$schema;

const shared = {
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false }] },
  moduleNameMapper: {
    // The apps' entry points (`@townhall/events/service`, `@townhall/auth-gateway/embedded`).
    '^@townhall/(auth-gateway|directory|events|ticketing|engagement|webhooks)/(.+)$':
      '<rootDir>/apps/$1/src/$2.ts',
    '^@townhall/([a-z0-9-]+)$': '<rootDir>/libs/$1/src/index.ts',
    '^@townhall/([a-z0-9-]+)/(.+)$': '<rootDir>/libs/$1/src/$2.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testEnvironment: 'node',
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
};

export default {
  // The pages load the browser programs bundled into dist/browser/; the unit tests run without a build.
  globalSetup: '<rootDir>/tools/browser-programs.mjs',
  // Per-project testTimeout is ignored by jest 30; e2e tests boot real processes, which on a
  // loaded two-core CI machine can take minutes.
  testTimeout: 300_000,
  reporters: ['default', '<rootDir>/tools/jest-summary-reporter.mjs'],
  projects: [
    {
      ...shared,
      displayName: 'unit',
      // test/docs and test/lint: checks of the repository itself (citations, links, lint rules); no server.
      testMatch: [
        '<rootDir>/{apps,libs}/*/src/**/*.spec.ts',
        '<rootDir>/test/docs/**/*.spec.ts',
        '<rootDir>/test/lint/**/*.spec.ts',
      ],
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs}/*/test/**/*.int-spec.ts'],
    },
    {
      // One service's ServiceDefinition on the in-process transport against real PostgreSQL
      // (libs/testing/src/service.ts): its handlers' rules and races, no HTTP or NATS.
      ...shared,
      displayName: 'service',
      testMatch: ['<rootDir>/apps/*/test/**/*.service-spec.ts'],
    },
    {
      // The service specs of the services with SQL functions again, each database built as a
      // deployed one is upgraded: the migrations it had, then the new ones and the functions by
      // checksum (libs/testing/src/schema-upgrade.ts). The suite holds on both.
      ...shared,
      displayName: 'service-upgraded',
      testMatch: ['<rootDir>/apps/{ticketing,engagement}/test/**/*.service-spec.ts'],
      setupFiles: ['<rootDir>/tools/jest-upgraded-databases.mjs'],
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      // The apps' entry points bundled, one file each, once per build (tools/app-bundles.mjs).
      globalSetup: '<rootDir>/tools/app-bundles.mjs',
      testTimeout: 300_000,
    },
    {
      ...shared,
      displayName: 'deploy',
      testMatch: ['<rootDir>/test/deploy/**/*.spec.ts'],
    },
  ],
};
