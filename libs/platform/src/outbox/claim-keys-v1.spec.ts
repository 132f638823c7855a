import { createHash } from 'node:crypto';
import { claimKeysV1, dropClaimFormerKey, undoClaimKeysV1 } from './claim-keys-v1.js';

const sha256 = (statements: string[]) => createHash('sha256').update(statements.join('\n')).digest('hex');

describe('claimKeysV1: frozen, because the claim-keys migrations of events and ticketing run it', () => {
  it.each([
    [
      '"events"',
      'events-counts',
      ['events-ticket-counts', 'events-question-counts', 'events-poll-counts'],
      '67563fea85d78c0585334cb828eedf06ed32adc985f5ff071dd623a660c6f48b',
      '32d4ed053501c62f60d44a597bd137325b14f6dba8226eada7c0c51316d6f579',
    ],
    [
      '"ticketing"',
      'ticketing',
      ['ticketing-events', 'ticketing-series'],
      '582925b089c2e8797db35178afddb022ad24d9a6884358e5121fc32fa5beb3d8',
      'e8e8f694e528376975fbe4598b2e4b1ed1bb8966bcac22a6127ff42316b93418',
    ],
  ])(
    'for %s is, byte for byte, what those migrations ran when they were written',
    (schema, former, durables, up, down) => {
      // A change here would give a database upgraded afresh other claims than deployed ones have:
      // move claim keys again with a new version and a new migration instead.
      expect(sha256(claimKeysV1(schema, former, durables))).toBe(up);
      expect(sha256(undoClaimKeysV1(schema, former, durables))).toBe(down);
    },
  );

  it.each([
    ['"events"', '60c6f08bd33779b82f02f6bd891c19496cb821fba332c3b2e438fca222905777'],
    ['"ticketing"', 'c724f3193e29b4d49f335743d19d741b91762426a72dbeeda67055c1b8150e6e'],
  ])('dropClaimFormerKey for %s is, byte for byte, what those migrations run to undo it', (schema, pin) => {
    expect(sha256(dropClaimFormerKey(schema))).toBe(pin);
  });

  it('refuses a key that is no consumer name, rather than splice it into SQL', () => {
    expect(() => claimKeysV1('"events"', "x'; DROP TABLE events.events; --", ['events-a'])).toThrow(
      'Not a claim key',
    );
  });
});
