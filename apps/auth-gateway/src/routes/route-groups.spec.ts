import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SignatureVerifier } from '@townhall/auth';
import { ALL_ROUTE_GROUPS, fieldsInPath, type HttpRoute, type MessageMeta } from '@townhall/contracts';
import { createLogger, type ServiceClient } from '@townhall/platform';
import { AgentClient } from '@townhall/sdk';
import { MemoryNonceStore } from '../auth/nonce-store.js';
import { createGateway } from '../gateway.js';

const AUDIENCE = 'https://townhall.test';

/** What reached a service: every contract's, recorded and answered with an empty object. */
const asked: Array<{ pattern: string; data: unknown; meta: MessageMeta }> = [];
const services: ServiceClient = {
  send: async (contract, data, meta) => {
    asked.push({ pattern: contract.pattern, data, meta });
    return {} as never;
  },
  close: async () => {},
};

describe('ALL_ROUTE_GROUPS in the gateway', () => {
  let app: NestFastifyApplication;
  let base: string;

  beforeAll(async () => {
    app = await createGateway({
      audience: AUDIENCE,
      bodyLimit: 64 * 1024,
      logger: createLogger('route-groups-test', 'silent'),
      services,
      nonces: new MemoryNonceStore(),
      verifier: new SignatureVerifier(),
      readiness: {},
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
  });

  it('mounts every route of every group, and each reaches its contract from the SDK', async () => {
    const agent = new AgentClient({ baseUrl: base, audience: AUDIENCE });
    const routes = ALL_ROUTE_GROUPS.flatMap((group) => Object.values(group) as HttpRoute[]);
    expect(routes.length).toBeGreaterThan(50);
    const fastify = app.getHttpAdapter().getInstance();
    for (const route of routes) {
      const name = `${route.tag}.${route.name}`;
      expect([name, fastify.hasRoute({ method: route.method, url: route.path })]).toEqual([name, true]);
      // The path's fields only: the gateway forwards them unchecked, the recording service takes anything.
      const input = Object.fromEntries(fieldsInPath(route).map((field) => [field, `${field}-1`]));
      asked.length = 0;
      await agent.route(route, input as never, { signed: route.signed || route.acceptsSignature === true });
      expect([name, asked.map(({ pattern }) => pattern)]).toEqual([name, [route.contract.pattern]]);
      expect(asked[0]?.data).toMatchObject(input);
      expect(asked[0]?.meta.caller).toBe(route.signed || route.acceptsSignature ? agent.agentId : null);
    }
  });
});
