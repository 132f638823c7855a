import { readFileSync } from 'node:fs';
import { DOMAIN_SERVICES } from './domain-services.js';

describe('the domain services standalone mode composes', () => {
  it('are the ones package.json names, in its order, each with a schema of its own', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      townhall: { services: string[] };
    };
    expect(DOMAIN_SERVICES.map((service) => service.name)).toEqual(manifest.townhall.services);
    expect(new Set(DOMAIN_SERVICES.map((service) => service.schema)).size).toBe(DOMAIN_SERVICES.length);
  });
});
