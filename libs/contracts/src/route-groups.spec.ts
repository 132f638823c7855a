import * as contracts from './index.js';
import { ALL_ROUTE_GROUPS, tagOfGroup, type RouteGroup } from './route-groups.js';

/** An exported object whose every member is a bound route: what `routeGroup` returns. */
function isRouteGroup(value: unknown): value is RouteGroup {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const members = Object.values(value);
  return (
    members.length > 0 &&
    members.every(
      (member) =>
        typeof member === 'object' &&
        member !== null &&
        'contract' in member &&
        typeof (member as { path?: unknown }).path === 'string' &&
        typeof (member as { tag?: unknown }).tag === 'string',
    )
  );
}

describe('ALL_ROUTE_GROUPS', () => {
  it('lists every route group the contracts export, once, each under its own tag', () => {
    const exported = Object.entries(contracts).filter(([, value]) => isRouteGroup(value));
    expect(exported.length).toBeGreaterThan(10);
    const missing = exported.filter(([, group]) => !ALL_ROUTE_GROUPS.includes(group as RouteGroup));
    expect(missing.map(([name]) => name)).toEqual([]);
    expect(new Set(ALL_ROUTE_GROUPS).size).toBe(ALL_ROUTE_GROUPS.length);
    for (const group of ALL_ROUTE_GROUPS)
      for (const route of Object.values(group))
        expect([route.name, route.tag]).toEqual([route.name, tagOfGroup(group)]);
    const tags = ALL_ROUTE_GROUPS.map(tagOfGroup);
    expect(new Set(tags).size).toBe(tags.length);
  });
});
