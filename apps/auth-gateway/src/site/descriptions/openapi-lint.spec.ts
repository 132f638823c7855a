import 'reflect-metadata';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  createConfig,
  getTotals,
  lintFromString,
  loadConfig,
  type NormalizedProblem,
} from '@redocly/openapi-core';
import { SignatureVerifier } from '@townhall/auth';
import { DomainError } from '@townhall/contracts';
import { createLogger, type ServiceClient } from '@townhall/platform';
import { operationsOf, type OpenApiDoc } from '@townhall/testing';
import { MemoryNonceStore } from '../../auth/nonce-store.js';
import { createGateway } from '../../gateway.js';
import type { OpenApiDocument } from './openapi-document.js';

/** The repository's rule set: redocly's `recommended`, and the one rule it turns off (with the reason). */
const RULES = fileURLToPath(new URL('../../../../../.redocly.yaml', import.meta.url));

const noServices: ServiceClient = {
  send: async () => {
    throw new DomainError('service.unavailable', 'no services in this test');
  },
  close: async () => {},
};

describe('the served OpenAPI document under redocly lint', () => {
  let app: NestFastifyApplication;
  let served: string;

  beforeAll(async () => {
    app = await createGateway({
      audience: 'https://townhall.test',
      bodyLimit: 64 * 1024,
      logger: createLogger('openapi-lint-test', 'silent'),
      services: noServices,
      nonces: new MemoryNonceStore(),
      verifier: new SignatureVerifier(),
      readiness: {},
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.getHttpServer().address() as AddressInfo;
    // Exactly the bytes GET /openapi.json serves.
    const response = await fetch(`http://127.0.0.1:${port}/openapi.json`);
    expect(response.status).toBe(200);
    served = await response.text();
  });
  afterAll(async () => {
    await app.close();
  });

  it('has no errors and no warnings under the recommended rules of .redocly.yaml', async () => {
    expect(existsSync(RULES)).toBe(true);
    const config = await loadConfig({ configPath: RULES });
    const problems = await lintFromString({ source: served, absoluteRef: 'openapi.json', config });
    const totals = getTotals(problems);
    // On failure, every problem with its rule and place.
    expect({ errors: totals.errors, warnings: totals.warnings, problems: problems.map(problemLine) }).toEqual(
      {
        errors: 0,
        warnings: 0,
        problems: [],
      },
    );
  });

  it('differs from plain `recommended` only by the one rule .redocly.yaml turns off, for /events/series/', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: served, absoluteRef: 'openapi.json', config });
    expect(problems.length).toBeGreaterThan(0);
    for (const problem of problems) {
      expect([problem.ruleId, problem.severity]).toEqual(['no-ambiguous-paths', 'warn']);
      expect(problem.message).toContain('`/events/series/{id}`');
    }
  });

  it('still reads as the fuzzer reads it: one operation each, signed exactly where security names a scheme', () => {
    const document = JSON.parse(served) as OpenApiDocument;
    const fuzzed = operationsOf(document as unknown as OpenApiDoc);
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    );
    expect(fuzzed).toHaveLength(documented.length);
    for (const { path, method, operation } of documented) {
      const found = fuzzed.find((entry) => entry.path === path && entry.method === method.toUpperCase());
      expect(found?.operationId).toBe(operation.operationId);
      expect(found?.signed).toBe((operation.security ?? []).length > 0);
    }
    expect(fuzzed.filter((entry) => entry.signed).length).toBeGreaterThan(25);
    expect(fuzzed.filter((entry) => !entry.signed).length).toBeGreaterThan(5);
  });
});

function problemLine(problem: NormalizedProblem): string {
  const where = problem.location.map((location) => location.pointer ?? '').join(', ');
  return `${problem.severity} ${problem.ruleId}: ${problem.message} at ${where}`;
}
