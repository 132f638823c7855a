import { table } from './table.js';

describe('table', () => {
  it('aligns columns and never pads the last one', () => {
    expect(
      table(
        [
          ['a', 'long', 'x'],
          ['bbb', 's', 'y'],
        ],
        ['H1', 'H2', 'H3'],
      ),
    ).toEqual(['H1   H2    H3', 'a    long  x', 'bbb  s     y']);
  });
});
