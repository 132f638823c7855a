import { readFileSync } from 'node:fs';
// Through the index: the route groups need every domain's schemas registered first.
import {
  ALL_ROUTE_GROUPS,
  announcedBy,
  BUS_ACCESS,
  BUS_APPS,
  domainEventCatalog,
  Events,
  Inventory,
  mayCall,
  Series,
  servingServiceOf,
  type BusApp,
} from './index.js';

const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  townhall: { services: string[]; gateway: string };
};
const services = BUS_APPS.filter((app) => app !== 'auth-gateway');

describe('BUS_ACCESS: who may do what on the bus', () => {
  it('lists every app of package.json "townhall", and nothing else', () => {
    expect([...BUS_APPS].sort()).toEqual([manifest.townhall.gateway, ...manifest.townhall.services].sort());
  });

  it("a service calls only other services' patterns, each one a contract of theirs", () => {
    for (const app of services) {
      const { calls } = BUS_ACCESS[app];
      if (calls === 'every service') throw new Error(`${app} may call every service`);
      for (const contract of calls) {
        expect(servingServiceOf(contract.pattern)).not.toBe(app);
        expect(services).toContain(servingServiceOf(contract.pattern));
      }
    }
  });

  it('the gateway may call every route of every service; a service only what it is granted', () => {
    for (const group of ALL_ROUTE_GROUPS)
      for (const route of Object.values(group))
        expect(mayCall('auth-gateway', route.contract.pattern)).toBe(true);
    expect(mayCall('ticketing', Events.access.pattern)).toBe(true);
    expect(mayCall('ticketing', Events.transition.pattern)).toBe(false);
    expect(mayCall('events', Inventory.changeCapacity.pattern)).toBe(true);
    expect(mayCall('webhooks', Events.get.pattern)).toBe(false);
    expect(mayCall('engagement', Series.create.pattern)).toBe(false);
    // A pattern of no service is nobody's to send, the gateway's neither.
    expect(mayCall('auth-gateway', 'townhall.event.cancelled')).toBe(false);
    expect(mayCall('auth-gateway', '$JS.API.STREAM.DELETE.TOWNHALL')).toBe(false);
  });

  it("each durable is its app's (named `<app>-...`) and no two apps share one", () => {
    const all = BUS_APPS.flatMap((app) => BUS_ACCESS[app].durables.map((durable) => ({ app, durable })));
    for (const { app, durable } of all) expect(durable.startsWith(`${app}-`)).toBe(true);
    expect(new Set(all.map(({ durable }) => durable)).size).toBe(all.length);
  });

  it('every domain event type is announced by exactly one service, which the bus lists', () => {
    const announced = BUS_APPS.flatMap((app: BusApp) => announcedBy(app));
    expect(announced.sort()).toEqual(Object.keys(domainEventCatalog).sort());
    expect(announcedBy('auth-gateway')).toEqual([]);
    expect(announcedBy('webhooks')).toEqual([]);
  });
});
