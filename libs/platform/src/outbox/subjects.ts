import type { ConsumerConfig } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { TOWNHALL_SUBJECTS } from '@townhall/contracts';

/** NATS wildcard matching: `*` is one token, a final `>` is one or more. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const want = pattern.split('.');
  const got = subject.split('.');
  for (const [index, token] of want.entries()) {
    if (token === '>') return index === want.length - 1 && got.length > index;
    const actual = got[index];
    if (actual === undefined || (token !== '*' && token !== actual)) return false;
  }
  return got.length === want.length;
}

/** How a durable consumer is filtered to its subjects. */
export interface SubjectFilter {
  config: Pick<Partial<ConsumerConfig>, 'filter_subject' | 'filter_subjects'>;
  /** Set when the server cannot filter on all subjects itself. */
  local?: (subject: string) => boolean;
}

// filter_subjects needs nats-server 2.10 (the client refuses it on older servers, even for one
// subject); one subject works everywhere as filter_subject. The unused field is sent as
// undefined so that an update drops whatever the consumer had before.
export function subjectFilter(nc: NatsConnection, subjects: string[]): SubjectFilter {
  const [only] = subjects;
  if (subjects.length === 1 && only !== undefined) {
    return { config: { filter_subject: only, filter_subjects: undefined } };
  }
  if (serverAtLeast(nc.info?.version, 2, 10)) {
    return { config: { filter_subjects: subjects, filter_subject: undefined } };
  }
  return {
    config: { filter_subject: TOWNHALL_SUBJECTS, filter_subjects: undefined },
    local: (subject) => subjects.some((pattern) => subjectMatches(pattern, subject)),
  };
}

function serverAtLeast(version: string | undefined, major: number, minor: number): boolean {
  const match = /^v?(\d+)\.(\d+)/.exec(version ?? '');
  if (!match) return false;
  const [serverMajor, serverMinor] = [Number(match[1]), Number(match[2])];
  return serverMajor > major || (serverMajor === major && serverMinor >= minor);
}
