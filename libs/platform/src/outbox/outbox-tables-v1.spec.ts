import { createHash } from 'node:crypto';
import { outboxTablesV1 } from './outbox-tables-v1.js';

describe('outboxTablesV1: frozen, because the first migrations of three services run it', () => {
  it.each([
    ['"events"', '37ca7f776b5cb5e51ab2f551e67350581b2a28cf523f9f10493d266858c7b3ae'],
    ['"ticketing"', '569e3028847f9490774073a3333e56000ba621640fb6d00693245a1041beab19'],
    ['"engagement"', '3c65874e2f8759c430dafe1862e9161911fb988e78d75137638db17799891783'],
  ])('for %s is, byte for byte, what those migrations ran when they were written', (schema, sha256) => {
    // A change here would give a database built afresh other tables than deployed ones have:
    // change the outbox with a new migration in each service instead.
    const text = outboxTablesV1(schema).join('\n');
    expect(createHash('sha256').update(text).digest('hex')).toBe(sha256);
  });
});
