import { readdirSync, readFileSync } from 'node:fs';

// The SDK signs payments in a browser (README): nothing it can import may need Node built-ins.
// `server.ts` is the server-only entry (`@townhall/x402/server`: the facilitator clients over
// @x402/core/http); the SDK never imports it.
const sources = readdirSync(new URL('.', import.meta.url)).filter(
  (name) => name.endsWith('.ts') && !name.endsWith('.spec.ts') && name !== 'server.ts',
);

describe('browser safety', () => {
  it('finds the library sources', () => {
    expect(sources).toEqual(expect.arrayContaining(['index.ts', 'payload.ts', 'facilitator.ts']));
  });

  it.each(sources)('%s imports no node: module and uses no Buffer', (name) => {
    const text = readFileSync(new URL(name, import.meta.url), 'utf8');
    expect(text).not.toMatch(/from\s+['"](node:|fs|crypto|http|https|path|buffer)['"/]/);
    expect(text).not.toMatch(/\bBuffer\.\w/);
    expect(text).not.toMatch(/@x402\/core\/(http|server|client|facilitator)['"]/);
  });
});
