import { readFileSync } from 'node:fs';
import { PROBLEM_CODES, type ProblemCode } from './problem-codes.js';

/** docs/protocol/errors.md is what client authors read: its code table must be PROBLEM_CODES exactly. */
const DOC = new URL('../../../docs/protocol/errors.md', import.meta.url);
const ROW = /^\|\s*`([^`]+)`\s*\|\s*(\d{3})\s*\|/;

function documentedCodes(): Map<string, number> {
  const rows = new Map<string, number>();
  for (const line of readFileSync(DOC, 'utf8').split('\n')) {
    const match = ROW.exec(line);
    if (!match) continue;
    const [, code = '', status = ''] = match;
    if (rows.has(code)) throw new Error(`errors.md lists ${code} twice`);
    rows.set(code, Number(status));
  }
  return rows;
}

describe('docs/protocol/errors.md', () => {
  const documented = documentedCodes();
  const declared = Object.keys(PROBLEM_CODES) as ProblemCode[];

  it('lists every code of PROBLEM_CODES', () => {
    expect(declared.filter((code) => !documented.has(code))).toEqual([]);
  });

  it('names no code that PROBLEM_CODES does not declare', () => {
    expect([...documented.keys()].filter((code) => !Object.hasOwn(PROBLEM_CODES, code))).toEqual([]);
  });

  it('gives each code the status PROBLEM_CODES gives it', () => {
    const wrong = declared
      .filter((code) => documented.has(code) && documented.get(code) !== PROBLEM_CODES[code].status)
      .map((code) => `${code}: doc ${documented.get(code)}, code ${PROBLEM_CODES[code].status}`);
    expect(wrong).toEqual([]);
  });
});
