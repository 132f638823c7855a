import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * docs/security.md names, for each answer, the test that proves it: a test file in backticks (its
 * path from the repository's root), then the test's name in double quotes (a name alone belongs to
 * the last file named before it). Each
 * named file must exist and each quoted name must be a test title in it, so that a renamed or
 * deleted test cannot leave an answer standing unproved.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SECURITY = 'docs/security.md';

/** The test files and the test names the document cites, each name with the file it belongs to. */
function citations(text: string): { files: string[]; names: Array<{ file: string; name: string }> } {
  const files: string[] = [];
  const names: Array<{ file: string; name: string }> = [];
  let current: string | undefined;
  for (const match of text.matchAll(
    /`([\w./-]+\.(?:spec|int-spec|service-spec|e2e-spec)\.ts)`|"([^"\n]+)"/g,
  )) {
    if (match[1] !== undefined) {
      current = match[1];
      files.push(current);
    } else if (current !== undefined && match[2] !== undefined) {
      names.push({ file: current, name: match[2] });
    }
  }
  return { files, names };
}

/** A test title as written in a test file: the characters between its quotes, unescaped. */
function titlesOf(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8').replaceAll("\\'", "'");
}

describe('docs/security.md', () => {
  const text = readFileSync(join(ROOT, SECURITY), 'utf8');
  const { files, names } = citations(text);

  it('names a test for what it says, and every test file it names exists', () => {
    expect(names.length).toBeGreaterThan(30);
    expect(files.filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
  });

  it('each test name it quotes is a test of the file named before it', () => {
    const missing = names.filter(({ file, name }) => !titlesOf(file).includes(name));
    expect(missing).toEqual([]);
  });

  it('the check itself: a name that is no test, or a file that does not exist, is found', () => {
    const made = citations(
      '`test/e2e/bus-authorization.e2e-spec.ts` "no such test" and `test/e2e/nothing.e2e-spec.ts`',
    );
    expect(made.names.filter(({ file, name }) => !titlesOf(file).includes(name))).toHaveLength(1);
    expect(made.files.filter((file) => !existsSync(join(ROOT, file)))).toEqual([
      'test/e2e/nothing.e2e-spec.ts',
    ]);
  });
});
