import { EventReadCache } from './event-read-cache.js';

const JSON_TYPE = 'application/json; charset=utf-8';

describe('EventReadCache', () => {
  let now: number;
  beforeEach(() => (now = 1_000_000));
  const cache = (options: { maxEntries?: number; maxBytes?: number } = {}) =>
    new EventReadCache({ maxAgeMs: 1_000, now: () => now, ...options });

  it('serves what it stored until its event changes', () => {
    const reads = cache();
    const etag = reads.store('e1', '/events/e1/questions', reads.ticket(), '{"items":[]}', JSON_TYPE);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(reads.get('e1', '/events/e1/questions')).toMatchObject({ body: '{"items":[]}', etag });
    reads.changed('e2');
    expect(reads.get('e1', '/events/e1/questions')).toBeDefined();
    reads.changed('e1');
    expect(reads.get('e1', '/events/e1/questions')).toBeUndefined();
    expect(reads.size).toBe(0);
  });

  it('never stores a reply whose read began before a change of its event (the read may predate it)', () => {
    const reads = cache();
    const ticket = reads.ticket();
    reads.changed('e1'); // a domain event arrives while the service is answering
    reads.store('e1', '/events/e1', ticket, '{"title":"old"}', JSON_TYPE);
    expect(reads.get('e1', '/events/e1')).toBeUndefined();
    // A read that began after the change is kept.
    reads.store('e1', '/events/e1', reads.ticket(), '{"title":"new"}', JSON_TYPE);
    expect(reads.get('e1', '/events/e1')?.body).toBe('{"title":"new"}');
    // A change of another event does not spoil a read of this one.
    const second = reads.ticket();
    reads.changed('e2');
    reads.store('e1', '/events/e1/stage', second, '{"items":[]}', JSON_TYPE);
    expect(reads.get('e1', '/events/e1/stage')).toBeDefined();
  });

  it('serves a reply for at most maxAgeMs, whatever happened', () => {
    const reads = cache();
    reads.store('e1', '/events/e1', reads.ticket(), '{}', JSON_TYPE);
    now += 999;
    expect(reads.get('e1', '/events/e1')).toBeDefined();
    now += 1;
    expect(reads.get('e1', '/events/e1')).toBeUndefined();
  });

  it('stays bounded in entries and bytes; a forgotten change still refuses older reads', () => {
    const reads = cache({ maxEntries: 3, maxBytes: 100 });
    for (let i = 0; i < 10; i++) reads.store(`e${i}`, `/events/e${i}`, reads.ticket(), '{}', JSON_TYPE);
    expect(reads.size).toBe(3);
    reads.store('big', '/events/big', reads.ticket(), 'x'.repeat(101), JSON_TYPE);
    expect(reads.get('big', '/events/big')).toBeUndefined();

    const ticket = reads.ticket();
    // Changes of more events than it remembers (4 x maxEntries) push e0's out...
    for (let i = 0; i < 13; i++) reads.changed(`x${i}`);
    reads.changed('e0');
    for (let i = 13; i < 26; i++) reads.changed(`x${i}`);
    // ...and a read of e0 that began before its change is still refused.
    reads.store('e0', '/events/e0', ticket, '{"stale":true}', JSON_TYPE);
    expect(reads.get('e0', '/events/e0')).toBeUndefined();
  });
});
