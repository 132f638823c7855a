import type { z } from 'zod';
// Every schema of the library registered, as the documents see them.
import './index.js';
import { busSchemas } from './bus-schemas.js';
import type { MessageMeta, MessageMetaSchema } from './contract.js';
import type { FieldError, RemoteError, RemoteErrorSchema } from './domain-error.js';
import { replySchemas } from './replies.js';

describe('the bus schemas', () => {
  it('keep ids apart from the reply schemas: both are components of the AsyncAPI document', () => {
    const replyIds = new Set(replySchemas._idmap.keys());
    expect(busSchemas._idmap.size).toBeGreaterThan(0);
    expect([...busSchemas._idmap.keys()].filter((id) => replyIds.has(id))).toEqual([]);
  });
});

/** Assignable both ways and with the same keys. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? SameKeys<A, B> : false) : false;
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
type Expect<T extends true> = T;

/** Fails to compile when a bus schema no longer matches the type the code uses. */
export type BusSchemaChecks = [
  Expect<Same<z.output<typeof MessageMetaSchema>, MessageMeta>>,
  Expect<Same<z.output<typeof RemoteErrorSchema>, RemoteError>>,
  Expect<Same<NonNullable<z.output<typeof RemoteErrorSchema>['errors']>[number], FieldError>>,
];
