import { TownhallError } from '@townhall/sdk';
import { KeyFileError } from '@townhall/sdk/key-file';
import { Refusal, UsageError, audienceHint, describeFailure, isUnreachable, realmOf } from './failure.js';

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
      json: error.problem,
      exitCode: 1,
    });
  });

  it('prints a field error once when the detail is that error (as the server words it)', () => {
    const problem = {
      type: 'http://x/docs/errors/validation.failed',
      title: 'The request is not valid',
      status: 400,
      detail: 'endsAt: must be after startsAt',
      code: 'validation.failed',
      requestId: 'r1',
    };
    const one = new TownhallError(
      { ...problem, errors: [{ field: 'endsAt', message: 'must be after startsAt' }] },
      new Headers(),
    );
    expect(describeFailure(one, 'http://x').lines).toEqual([
      'error validation.failed: endsAt: must be after startsAt',
    ]);
    const two = new TownhallError(
      {
        ...problem,
        errors: [
          { field: 'endsAt', message: 'must be after startsAt' },
          { field: 'capacity', message: 'too big' },
        ],
      },
      new Headers(),
    );
    expect(describeFailure(two, 'http://x').lines).toEqual([
      'error validation.failed: endsAt: must be after startsAt',
      '  capacity: too big',
    ]);
  });

  it('explains a signature that does not verify by the audience, naming the server one', () => {
    const problem = {
      type: '',
      title: 'The signature does not verify',
      status: 401,
      detail: 'signature does not match the signing string',
      code: 'auth.signature_invalid',
      requestId: 'r2',
    };
    const realm = new Headers({ 'www-authenticate': 'service realm="http://127.0.0.1:3000"' });
    const signedFor = { audience: 'http://localhost:3000', from: 'the origin of --url' };
    const failure = describeFailure(new TownhallError(problem, realm), 'http://localhost:3000', signedFor);
    expect(failure.lines).toEqual([
      'error auth.signature_invalid: signature does not match the signing string',
      "  signed for the audience http://localhost:3000 (the origin of --url), but the server's audience (its PUBLIC_BASE_URL) is http://127.0.0.1:3000",
      '  sign for it with: --audience http://127.0.0.1:3000 (or TOWNHALL_AUDIENCE=http://127.0.0.1:3000)',
    ]);
    expect(failure.json).toEqual({
      ...problem,
      hint: failure.lines
        .slice(1)
        .map((line) => line.trim())
        .join('; '),
    });

    // No realm (an older server, a proxy that drops it): what to compare, in general.
    expect(audienceHint(signedFor, undefined)).toEqual([
      'signed for the audience http://localhost:3000 (the origin of --url); the server checks signatures against its PUBLIC_BASE_URL (http://localhost:3000 and http://127.0.0.1:3000 differ)',
      'if they differ, pass --audience <its PUBLIC_BASE_URL> (or set TOWNHALL_AUDIENCE)',
    ]);
    // The same audience: the audience is not why.
    expect(audienceHint(signedFor, 'http://localhost:3000/')[0]).toMatch(
      /audience too: was the request changed/,
    );
    // Other codes, or no signed call, get no hint.
    expect(describeFailure(new TownhallError(problem, realm), 'http://x').lines).toHaveLength(1);
    expect(realmOf(realm)).toBe('http://127.0.0.1:3000');
    expect(realmOf(new Headers())).toBeUndefined();
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
    expect(describeFailure(new KeyFileError('key.not_found', 'no key at /k', '/k'), 'http://x').json).toEqual(
      {
        error: {
          code: 'key.not_found',
          message: 'no key at /k',
          hint: 'create one with: townhall keygen (or name another with --key <file>)',
        },
      },
    );
    expect(describeFailure(new Refusal('payment.above_max_price', 'too dear'), 'http://x')).toEqual({
      lines: ['error payment.above_max_price: too dear'],
      json: { error: { code: 'payment.above_max_price', message: 'too dear' } },
      exitCode: 1,
    });
    expect(describeFailure(new UsageError('bad'), 'http://x')).toEqual({
      lines: ['error usage: bad'],
      json: { error: { code: 'usage', message: 'bad' } },
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
      json: {
        error: {
          code: 'network.unreachable',
          message: 'nothing answers at http://localhost:3000',
          hint: 'is Townhall running? Start it with: npm start (or point --url / TOWNHALL_URL at it)',
        },
      },
      exitCode: 1,
    });
  });
});
