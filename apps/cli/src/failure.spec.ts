import { TownhallError } from '@townhall/sdk';
import { KeyFileError } from '@townhall/sdk/key-file';
import { Refusal, UsageError, describeFailure, isUnreachable } from './failure.js';

describe('describeFailure', () => {
  it('prints the problem code, the detail and every field error', () => {
    const error = new TownhallError(
      {
        type: 'http://x/docs/errors/validation.failed',
        title: 'Validation failed',
        status: 400,
        detail: 'The request is invalid',
        code: 'validation.failed',
        requestId: 'r1',
        errors: [
          { field: 'title', message: 'must not be empty' },
          { field: 'capacity', message: 'must be at most 1000000' },
        ],
      },
      new Headers(),
    );
    expect(describeFailure(error, 'http://x')).toEqual({
      lines: [
        'error validation.failed: The request is invalid',
        '  title: must not be empty',
        '  capacity: must be at most 1000000',
      ],
      exitCode: 1,
    });
  });

  it('says when to retry', () => {
    const error = new TownhallError(
      { type: '', title: 'Too many', status: 429, detail: '', code: 'rate.limited', requestId: '' },
      new Headers({ 'retry-after': '2' }),
    );
    expect(describeFailure(error, 'http://x').lines).toEqual([
      'error rate.limited: Too many',
      '  retry after 2 s',
    ]);
  });

  it('explains key file problems, refusals and usage errors', () => {
    expect(
      describeFailure(new KeyFileError('key.not_found', 'no key at /k', '/k'), 'http://x').lines,
    ).toEqual([
      'error key.not_found: no key at /k',
      '  create one with: townhall keygen (or name another with --key <file>)',
    ]);
    expect(describeFailure(new Refusal('payment.above_max_price', 'too dear'), 'http://x')).toEqual({
      lines: ['error payment.above_max_price: too dear'],
      exitCode: 1,
    });
    expect(describeFailure(new UsageError('bad'), 'http://x')).toEqual({
      lines: ['error usage: bad'],
      exitCode: 2,
    });
    expect(describeFailure(new Error('boom'), 'http://x').lines).toEqual(['error internal: boom']);
  });

  it('tells a refused connection from other failures', () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
    });
    expect(isUnreachable(refused)).toBe(true);
    const both = new TypeError('fetch failed', {
      cause: { errors: [{ code: 'ECONNREFUSED' }, { code: 'ECONNREFUSED' }] },
    });
    expect(isUnreachable(both)).toBe(true);
    const tls = new TypeError('fetch failed', { cause: new Error('certificate has expired') });
    expect(isUnreachable(tls)).toBe(false);
    expect(describeFailure(tls, 'https://x').lines).toEqual([
      'error network.failed: the request to https://x failed: certificate has expired',
    ]);
    expect(describeFailure(refused, 'http://localhost:3000')).toEqual({
      lines: [
        'error network.unreachable: nothing answers at http://localhost:3000',
        '  is Townhall running? Start it with: npm start (or point --url / TOWNHALL_URL at it)',
      ],
      exitCode: 1,
    });
  });
});
