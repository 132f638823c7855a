import { curlCommand, headerLines, shellQuote } from './curl.js';

describe('curl text', () => {
  it('quotes any word for a POSIX shell', () => {
    expect(shellQuote('plain')).toBe("'plain'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote('$HOME `x` "y"')).toBe(`'$HOME \`x\` "y"'`);
  });

  const call = {
    method: 'PUT',
    url: 'http://localhost:3000/directory/me',
    headers: { authorization: 'service A:B:C', 'x-nonce': 'N', 'content-type': 'application/json' },
    body: `{"bio":"it's me"}`,
  };

  it('prints -H lines joined by continuations', () => {
    expect(headerLines(call)).toEqual([
      "-H 'authorization: service A:B:C' \\",
      "-H 'x-nonce: N' \\",
      "-H 'content-type: application/json'",
    ]);
  });

  it('prints a whole curl command that sends the body as signed', () => {
    expect(curlCommand(call)).toEqual([
      "curl -sS -X PUT 'http://localhost:3000/directory/me' \\",
      "  -H 'authorization: service A:B:C' \\",
      "  -H 'x-nonce: N' \\",
      "  -H 'content-type: application/json' \\",
      `  --data-raw '{"bio":"it'\\''s me"}'`,
    ]);
    const { body: _body, ...withoutBody } = call;
    expect(curlCommand({ ...withoutBody, method: 'GET' }).at(-1)).toBe(
      "  -H 'content-type: application/json'",
    );
  });
});
