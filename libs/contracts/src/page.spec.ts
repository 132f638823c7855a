import { StageListSchema } from './engagement.js';
import { PagingSchema } from './page.js';

describe('paging and sequence queries stay within their columns', () => {
  it('takes ?after= from 0 to 2^31-1 (an integer column) and refuses the rest', () => {
    const after = (value: string) => StageListSchema.safeParse({ eventId: 'e', after: value }).success;
    expect(['0', '2147483647'].map(after)).toEqual([true, true]);
    expect(['2147483648', '-1', '1.5', '1e99', 'x', 'NaN', 'Infinity'].map(after)).toEqual(
      Array(7).fill(false),
    );
  });

  it('takes a limit from 1 to 100 and refuses arrays, floats and huge numbers', () => {
    const limit = (value: unknown) => PagingSchema.safeParse({ limit: value }).success;
    expect(['1', '100'].map(limit)).toEqual([true, true]);
    expect(['0', '101', '1e99', '2.5', ['1', '2']].map(limit)).toEqual(Array(5).fill(false));
  });
});
