import { eventIdOf } from './event-resource.js';

describe('eventIdOf: the event of a townhall://events/{eventId} URI', () => {
  it.each([
    ['townhall://events/0f6c2f5e-1b2a-4c3d-8e9f-0a1b2c3d4e5f', '0f6c2f5e-1b2a-4c3d-8e9f-0a1b2c3d4e5f'],
    ['townhall://events/abc', 'abc'],
  ])('%s is event %s', (uri, id) => expect(eventIdOf(uri)).toBe(id));

  it.each([
    'townhall://events/',
    'townhall://other/abc',
    'https://events/abc',
    'townhall://events/a/b',
    'townhall://events/%2E%2E',
    'townhall://events/a%00b',
    'townhall://events/%ZZ',
    `townhall://events/${'a'.repeat(101)}`,
    'townhall://events/\ud800',
  ])('%s is none', (uri) => expect(eventIdOf(uri)).toBeUndefined());
});
