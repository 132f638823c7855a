import { randomBytes } from 'node:crypto';
import { announcedBy, BUS_ACCESS, BUS_APPS, TOWNHALL_STREAM, type BusApp } from '@townhall/contracts';

/**
 * Where an app's replies arrive: its own inbox prefix, which only its NATS user may subscribe to,
 * so no other app reads its replies (the NATS client's `inboxPrefix`).
 */
export function inboxPrefixOf(app: BusApp): string {
  return `_INBOX_${app}`;
}

/**
 * A new password for an app's NATS user: 192 random bits, hex after a letter. nats-server reads a
 * variable's value as configuration, not as text: a password that begins with a digit or a dash
 * is taken for a number and refused (a bcrypt hash, `$2a$...`, or a double-quoted value is text).
 */
export function newNatsPassword(): string {
  return `p${randomBytes(24).toString('hex')}`;
}

/** The environment variable of nats-server that holds `app`'s password (plain, or a bcrypt hash). */
export function natsPasswordVariable(app: BusApp): string {
  return `TOWNHALL_NATS_PASSWORD_${app.toUpperCase().replaceAll('-', '_')}`;
}

/** What one NATS user may publish and subscribe to (nats-server's `permissions`). */
export interface NatsPermissions {
  publish: { allow: string[]; deny: string[] };
  subscribe: { allow: string[] };
  /** May answer the requests it receives (nats-server's `allow_responses`), and nothing more. */
  allowResponses: boolean;
}

const API = '$JS.API';
const STREAM = TOWNHALL_STREAM;

/** The JetStream API subjects that bind, read and acknowledge one durable consumer, and only it. */
function durableSubjects(durable: string): string[] {
  return [
    // Created or updated with its filter in the subject (the client's API since NATS 2.9), or
    // without a filter, or by the older durable subject (more than one filter on NATS 2.10).
    `${API}.CONSUMER.CREATE.${STREAM}.${durable}`,
    `${API}.CONSUMER.CREATE.${STREAM}.${durable}.>`,
    `${API}.CONSUMER.DURABLE.CREATE.${STREAM}.${durable}`,
    `${API}.CONSUMER.INFO.${STREAM}.${durable}`,
    `${API}.CONSUMER.MSG.NEXT.${STREAM}.${durable}`,
    // ack, nak, working and term answer the message's reply subject; JetStream checks nothing else.
    `$JS.ACK.${STREAM}.${durable}.>`,
  ];
}

/**
 * `app`'s permissions, from BUS_ACCESS (libs/contracts): the requests it sends, the request subjects
 * it serves (a service: `<name>.>`), the domain events it announces, the durables it binds, and the
 * stream reads of the gateway's live streams. Nothing is granted by a wildcard that could reach
 * another app's subjects, but for the gateway's consumers without a place (a generated name each),
 * from which every durable is denied by name.
 */
export function natsPermissionsOf(app: BusApp): NatsPermissions {
  const access = BUS_ACCESS[app];
  const services = BUS_APPS.filter((name) => name !== 'auth-gateway');
  const isService = app !== 'auth-gateway';
  const announces = announcedBy(app);
  const allow = new Set<string>([`${API}.INFO`, `${API}.STREAM.INFO.${STREAM}`]);
  const deny: string[] = [];
  // What each sends: the gateway every service's requests, a service the contracts it calls.
  if (access.calls === 'every service') for (const service of services) allow.add(`${service}.>`);
  else for (const contract of access.calls) allow.add(contract.pattern);
  // The services that announce keep the stream in shape (created, its replicas); the others wait for it.
  if (announces.length > 0) {
    allow.add(`${API}.STREAM.CREATE.${STREAM}`);
    allow.add(`${API}.STREAM.UPDATE.${STREAM}`);
  }
  for (const type of announces) allow.add(type);
  for (const durable of access.durables) for (const subject of durableSubjects(durable)) allow.add(subject);
  if (access.readsStream) {
    // Consumers of its own that keep no place: named by the client (`oc_<nuid>`), so granted by a
    // token wildcard, with every durable denied by name. The subject without a name (the old API
    // for ephemeral consumers) is not granted: JetStream takes its body's name as any consumer's.
    for (const verb of ['CREATE', 'INFO', 'DELETE', 'MSG.NEXT'])
      allow.add(`${API}.CONSUMER.${verb}.${STREAM}.*`);
    allow.add(`${API}.CONSUMER.CREATE.${STREAM}.*.>`);
    for (const durable of BUS_APPS.flatMap((other) => BUS_ACCESS[other].durables)) {
      deny.push(
        `${API}.CONSUMER.CREATE.${STREAM}.${durable}`,
        `${API}.CONSUMER.CREATE.${STREAM}.${durable}.>`,
        `${API}.CONSUMER.DELETE.${STREAM}.${durable}`,
        `${API}.CONSUMER.MSG.NEXT.${STREAM}.${durable}`,
      );
    }
  }
  return {
    publish: { allow: [...allow], deny },
    subscribe: { allow: [...(isService ? [`${app}.>`] : []), `${inboxPrefixOf(app)}.>`] },
    allowResponses: isService,
  };
}

/**
 * nats-server's `authorization` block for every app of BUS_ACCESS: one user per app, its password
 * read by nats-server from its environment (natsPasswordVariable), and no anonymous user, so a
 * client without credentials is refused. k8s/nats-authorization.conf is this text (a spec holds
 * them equal), included by the NATS of k8s/nats-values.yaml, npm run start:distributed and tests.
 */
export function natsAuthorizationConf(): string {
  const users = BUS_APPS.map((app) => {
    const { publish, subscribe, allowResponses } = natsPermissionsOf(app);
    const list = (subjects: string[], indent: string) =>
      subjects.length === 0
        ? '[]'
        : `[\n${subjects.map((subject) => `${indent}  ${JSON.stringify(subject)}`).join('\n')}\n${indent}]`;
    return [
      '    {',
      `      user: ${JSON.stringify(app)}`,
      `      password: $${natsPasswordVariable(app)}`,
      '      permissions: {',
      '        publish: {',
      `          allow: ${list(publish.allow, '          ')}`,
      ...(publish.deny.length > 0 ? [`          deny: ${list(publish.deny, '          ')}`] : []),
      '        }',
      `        subscribe: { allow: ${list(subscribe.allow, '        ')} }`,
      ...(allowResponses ? ['        allow_responses: true'] : []),
      '      }',
      '    }',
    ].join('\n');
  });
  return [
    '# Who may do what on the bus: generated from libs/contracts/src/bus-access.ts by',
    '# `npm run nats:authorization`; a spec fails while this file differs from it. Include it in',
    '# nats-server\'s configuration (k8s/README.md "NATS"). Each app is a user; its password is read',
    '# from the environment of nats-server (TOWNHALL_NATS_PASSWORD_<APP>: the password, or its bcrypt',
    '# hash from `nats server passwd`). There is no anonymous user: a client without credentials is refused.',
    'authorization {',
    '  users = [',
    users.join('\n'),
    '  ]',
    '}',
    '',
  ].join('\n');
}
