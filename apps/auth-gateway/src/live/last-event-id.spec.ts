import { DomainError } from '@townhall/contracts';
import { resumePointOf } from './last-event-id.js';

describe('resumePointOf', () => {
  it('reads the Last-Event-ID header first, then ?lastEventId=', () => {
    expect(resumePointOf('17', '3')).toBe(17);
    expect(resumePointOf(undefined, '3')).toBe(3);
    expect(resumePointOf(undefined, '0')).toBe(0);
  });

  it('treats an absent or empty value as no resume', () => {
    expect(resumePointOf(undefined, undefined)).toBeUndefined();
    expect(resumePointOf('', undefined)).toBeUndefined();
    expect(resumePointOf(undefined, '')).toBeUndefined();
  });

  it.each([['abc'], ['-1'], ['1.5'], [' 1'], ['1e3'], ['99999999999999999'], [['1', '2']]])(
    'refuses %j with validation.failed',
    (value) => {
      const attempt = () => resumePointOf(undefined, value);
      expect(attempt).toThrow(DomainError);
      expect(attempt).toThrow(expect.objectContaining({ code: 'validation.failed' }));
    },
  );

  it('names the header when the header is the bad one', () => {
    expect(() => resumePointOf('x', undefined)).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ field: 'Last-Event-ID' })] }),
    );
  });
});
