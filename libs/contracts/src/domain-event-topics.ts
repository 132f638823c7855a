import type { DomainEvent, DomainEventType } from './domain-event-catalog.js';

// NATS subject matching, on types: `*` is one token, a final `>` one or more (as the platform's
// subjectMatches does at run time), so that a consumer's topic types what it is handed.
type Tokens<S extends string> = S extends `${infer Head}.${infer Rest}` ? [Head, ...Tokens<Rest>] : [S];
type TokensMatch<Pattern extends string[], Subject extends string[]> = Pattern extends ['>']
  ? Subject extends [string, ...string[]]
    ? true
    : false
  : Pattern extends [infer P extends string, ...infer PatternRest extends string[]]
    ? Subject extends [infer S extends string, ...infer SubjectRest extends string[]]
      ? P extends '*' | S
        ? TokensMatch<PatternRest, SubjectRest>
        : false
      : false
    : Subject extends []
      ? true
      : false;

/**
 * The domain event types a consumer's topic covers: the type itself (`townhall.ticket.issued`),
 * or each type a NATS wildcard matches (`townhall.ticket.>`, `townhall.*.cancelled`). `never` for
 * a topic that matches no type of the catalog.
 */
export type DomainEventTypeOf<Topic extends string> = {
  [T in DomainEventType]: TokensMatch<Tokens<Topic>, Tokens<T>> extends true ? T : never;
}[DomainEventType];

/** What a consumer of `Topic` is handed: a domain event of one of the types it covers. */
export type DomainEventOf<Topic extends string> = DomainEvent<DomainEventTypeOf<Topic>>;
