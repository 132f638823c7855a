import { BUS_ACCESS, BUS_APPS, mayCall, servingServiceOf, type BusApp } from '@townhall/contracts';
import {
  inboxPrefixOf,
  natsAuthorizationConf,
  natsPasswordVariable,
  natsPermissionsOf,
  newNatsPassword,
} from './nats-authorization.js';

const SERVICES = BUS_APPS.filter((app) => app !== 'auth-gateway');
const DURABLES = BUS_APPS.flatMap((app) => BUS_ACCESS[app].durables);

describe("each app's NATS permissions, from BUS_ACCESS", () => {
  it('a service serves its own request subjects only; the gateway serves none; each reads only its own inbox', () => {
    for (const app of BUS_APPS) {
      const { subscribe, allowResponses } = natsPermissionsOf(app);
      expect(subscribe.allow).toEqual([
        ...(app === 'auth-gateway' ? [] : [`${app}.>`]),
        `${inboxPrefixOf(app)}.>`,
      ]);
      expect(allowResponses).toBe(app !== 'auth-gateway');
    }
  });

  it('publishes a request subject only where BUS_ACCESS lets it call', () => {
    for (const app of BUS_APPS) {
      const requests = natsPermissionsOf(app).publish.allow.filter((subject) =>
        (SERVICES as readonly string[]).includes(servingServiceOf(subject)),
      );
      for (const subject of requests) {
        const pattern = subject.replace(/\.>$/, '.any');
        expect([app, subject, mayCall(app, pattern)]).toEqual([app, subject, true]);
      }
    }
    expect(natsPermissionsOf('webhooks').publish.allow.some((subject) => subject.startsWith('events.'))).toBe(
      false,
    );
    expect(natsPermissionsOf('ticketing').publish.allow).toContain('events.event.access');
    expect(natsPermissionsOf('ticketing').publish.allow).not.toContain('events.event.transition');
  });

  it('announces its own domain events only, and binds its own durables only', () => {
    const owner = (durable: string): BusApp =>
      BUS_APPS.find((app) => BUS_ACCESS[app].durables.includes(durable))!;
    for (const app of BUS_APPS) {
      const allow = natsPermissionsOf(app).publish.allow;
      for (const subject of allow.filter((each) => each.startsWith('townhall.')))
        expect(subject.startsWith(`townhall.`) && !subject.includes('>') && !subject.includes('*')).toBe(
          true,
        );
      for (const durable of DURABLES) {
        const binds = allow.includes(`$JS.API.CONSUMER.MSG.NEXT.TOWNHALL.${durable}`);
        expect([app, durable, binds]).toEqual([app, durable, owner(durable) === app]);
      }
    }
    expect(
      natsPermissionsOf('webhooks').publish.allow.filter((subject) => subject.startsWith('townhall.')),
    ).toEqual([]);
  });

  it('the gateway reads the stream through consumers of its own, every durable denied by name', () => {
    const { publish } = natsPermissionsOf('auth-gateway');
    expect(publish.allow).toContain('$JS.API.CONSUMER.CREATE.TOWNHALL.*.>');
    // The old subject for ephemeral consumers takes any consumer's name from its body.
    expect(publish.allow).not.toContain('$JS.API.CONSUMER.CREATE.TOWNHALL');
    for (const durable of DURABLES)
      for (const verb of ['CREATE', 'DELETE', 'MSG.NEXT'])
        expect(publish.deny).toContain(`$JS.API.CONSUMER.${verb}.TOWNHALL.${durable}`);
    // Nobody but the services that announce may shape the stream; nobody may delete or purge it.
    for (const app of BUS_APPS) {
      const allow = natsPermissionsOf(app).publish.allow;
      expect(allow.some((subject) => /STREAM\.(DELETE|PURGE)|\$JS\.API\.>/.test(subject))).toBe(false);
      expect(allow.includes('$JS.API.STREAM.UPDATE.TOWNHALL')).toBe(
        ['auth-gateway', 'webhooks'].includes(app) === false,
      );
    }
  });
});

describe('the authorization file', () => {
  it('has one user per app, each password a variable of its own, and no anonymous user', () => {
    const conf = natsAuthorizationConf();
    for (const app of BUS_APPS) {
      expect(conf).toContain(`user: "${app}"`);
      expect(conf).toContain(`password: $${natsPasswordVariable(app)}`);
    }
    expect(conf).not.toMatch(/no_auth_user/);
    expect(natsPasswordVariable('auth-gateway')).toBe('TOWNHALL_NATS_PASSWORD_AUTH_GATEWAY');
  });

  it('makes passwords nats-server reads as text: a letter first, then 48 hex digits', () => {
    const passwords = Array.from({ length: 50 }, () => newNatsPassword());
    for (const password of passwords) expect(password).toMatch(/^p[0-9a-f]{48}$/);
    expect(new Set(passwords).size).toBe(passwords.length);
  });
});
