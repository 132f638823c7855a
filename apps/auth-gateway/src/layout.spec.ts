import { readdirSync, readFileSync } from 'node:fs';

/** Every source file of the gateway (tests aside), by its path under src/. */
const SOURCES = readdirSync(new URL('.', import.meta.url), { recursive: true })
  .map(String)
  .filter((path) => path.endsWith('.ts') && !path.endsWith('.spec.ts'))
  .map((path) => ({ path, text: readFileSync(new URL(path, import.meta.url), 'utf8') }));

describe('the layout of the gateway', () => {
  it('keeps the API apart from the site: only gateway.ts, which composes them, imports site/', () => {
    expect(SOURCES.length).toBeGreaterThan(80);
    const reaching = SOURCES.filter(
      ({ path, text }) =>
        !path.startsWith('site/') && path !== 'gateway.ts' && /from '[./]+\/?site\//.test(text),
    );
    expect(reaching.map(({ path }) => path)).toEqual([]);
  });

  it("reads no framework's private constants, and holds no program in a string", () => {
    const offending = SOURCES.filter(({ text }) => /\/constants(\.js)?'|String\.raw`/.test(text));
    expect(offending.map(({ path }) => path)).toEqual([]);
  });
});
