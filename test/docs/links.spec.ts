import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * The documentation lives in this repository (docs/README.md is its index). These checks keep it so:
 * no file cites the design documents that used to live outside the repository; every relative
 * Markdown link in a README or under docs/ points at a file that exists and, when it names a heading
 * of a Markdown file (`#anchor`), at a heading that file has; and the root README stays short enough
 * to read in a few minutes (the reference lives under docs/).
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The root README orients; past this many lines it has become the reference, which is docs/. */
const README_MAX_LINES = 250;

/** Spelt in pieces so that this file does not match itself. */
const OUTSIDE_DOCUMENTS = ['PROTOCOL', 'PRODUCT', 'ARCHITECTURE', 'ENVIRONMENT', 'STYLE', 'BRIEF'].map(
  (name) => `${name}.md`,
);
const OUTSIDE_FOLDER = ['', 'work', 'shared'].join('/');

/**
 * Tracked files, and new ones not yet committed (untracked but not ignored), so that a citation is
 * caught before the commit; on a clean clone (CI) the two are the same list.
 */
function repositoryFiles(): string[] {
  const output = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const files = [...new Set(output.split('\0').filter(Boolean))];
  // A file deleted in the working tree but not yet in the index is still listed: skip it.
  return files.filter((file) => existsSync(join(ROOT, file))).sort();
}

/** The file's text, or undefined for a binary file (a NUL byte) or a directory (a submodule). */
function textOf(file: string): string | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(ROOT, file));
  } catch {
    return undefined;
  }
  return bytes.includes(0) ? undefined : bytes.toString('utf8');
}

/** `file:line: needle` for each needle on each line of `text` that contains it. */
function linesMatching(file: string, text: string, needles: string[]): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, index) => {
    for (const needle of needles) {
      if (line.includes(needle)) found.push(`${file}:${index + 1}: ${needle}`);
    }
  });
  return found;
}

/**
 * The same text with fenced code blocks and inline code spans blanked (lengths kept, newlines kept),
 * so that `a[i](x)` in code is not taken for a link and line numbers stay right.
 */
function withoutCode(markdown: string): string {
  const blank = (match: string) => match.replace(/[^\n]/g, ' ');
  return markdown
    .replace(/^( {0,3})(```|~~~)[^\n]*\n[\s\S]*?^ {0,3}\2[^\n]*$/gm, blank)
    .replace(/(`+)[^`\n]+?\1/g, blank);
}

/** Every link target of a Markdown text: inline (`[text](target "title")`, images too) or reference (`[id]: target`). */
function linkTargets(markdown: string): Array<{ line: number; target: string }> {
  const text = withoutCode(markdown);
  const targets: Array<{ line: number; target: string }> = [];
  const lineOf = (offset: number) => text.slice(0, offset).split('\n').length;
  for (const match of text.matchAll(/\]\(\s*([^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)) {
    targets.push({ line: lineOf(match.index), target: match[1]! });
  }
  for (const match of text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) {
    targets.push({ line: lineOf(match.index), target: match[1]! });
  }
  return targets;
}

/** The same text with fenced code blocks blanked (newlines kept), so that `# comment` in code is no heading. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^( {0,3})(```|~~~)[^\n]*\n[\s\S]*?^ {0,3}\2[^\n]*$/gm, (match) =>
    match.replace(/[^\n]/g, ' '),
  );
}

/**
 * The anchors of a Markdown text's headings, as GitHub makes them: the heading's text lower-cased,
 * without punctuation (backticks, colons, apostrophes, ...), each space a hyphen; a repeated one
 * gets `-1`, `-2`, ... Explicit `<a id="...">` / `name="..."` anchors count too.
 */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of withoutFences(markdown).matchAll(/^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const text = match[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'); // a link in a heading: its text
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const match of markdown.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  return anchors;
}

/** The heading a link names (`#anchor`, decoded), or undefined when it names none. */
function anchorOf(target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined;
  const at = target.indexOf('#');
  if (at < 0 || at === target.length - 1) return undefined;
  const anchor = target.slice(at + 1);
  try {
    return decodeURIComponent(anchor);
  } catch {
    return anchor;
  }
}

/** The repository path a relative link points at, or undefined for an absolute URL or an anchor. */
function resolveLink(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined; // https:, mailto:, ...
  const path = target.replace(/[?#].*$/, '');
  if (path === '') return undefined; // #anchor in the same file
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    decoded = path;
  }
  return decoded.startsWith('/')
    ? posix.normalize(decoded.slice(1))
    : posix.normalize(posix.join(posix.dirname(file), decoded));
}

const files = repositoryFiles();

const markdownFiles = files.filter(
  (file) => posix.basename(file) === 'README.md' || (file.startsWith('docs/') && file.endsWith('.md')),
);

describe('the documentation is in the repository', () => {
  it('has the index and the documents it lists', () => {
    for (const doc of [
      'README.md',
      'api.md',
      'tickets-and-payments.md',
      'running-a-townhall.md',
      'product.md',
      'architecture.md',
      'libraries.md',
      'operations.md',
      'performance.md',
      'development.md',
    ]) {
      expect(existsSync(join(ROOT, 'docs', doc))).toBe(true);
    }
  });

  it('no file cites a design document from outside the repository', () => {
    const needles = [...OUTSIDE_DOCUMENTS, OUTSIDE_FOLDER];
    const citations = files.flatMap((file) => {
      const text = textOf(file);
      return text === undefined ? [] : linesMatching(file, text, needles);
    });
    expect(citations).toEqual([]);
  });

  it('every relative link in a README or under docs/ points at a file that exists', () => {
    expect(markdownFiles).toContain('docs/README.md');
    const broken = markdownFiles.flatMap((file) => {
      const text = textOf(file) ?? '';
      return linkTargets(text).flatMap(({ line, target }) => {
        const path = resolveLink(file, target);
        if (path === undefined) return [];
        const inside = !path.startsWith('../') && path !== '..';
        return inside && existsSync(join(ROOT, path)) ? [] : [`${file}:${line}: ${target}`];
      });
    });
    expect(broken).toEqual([]);
  });

  it('every link to a heading of a Markdown file names a heading that file has', () => {
    const anchorsByFile = new Map<string, Set<string>>();
    const anchorsOf = (file: string) => {
      let anchors = anchorsByFile.get(file);
      if (anchors === undefined) {
        anchors = headingAnchors(textOf(file) ?? '');
        anchorsByFile.set(file, anchors);
      }
      return anchors;
    };
    const broken = markdownFiles.flatMap((file) =>
      linkTargets(textOf(file) ?? '').flatMap(({ line, target }) => {
        const anchor = anchorOf(target);
        if (anchor === undefined) return [];
        // `#anchor` alone names a heading of the linking file itself.
        const path = target.startsWith('#') ? file : resolveLink(file, target);
        if (path === undefined || !path.endsWith('.md') || !existsSync(join(ROOT, path))) return [];
        return anchorsOf(path).has(anchor) ? [] : [`${file}:${line}: ${target}`];
      }),
    );
    expect(broken).toEqual([]);
  });

  it(`the root README is at most ${README_MAX_LINES} lines: what Townhall is, how to start it, where the rest is`, () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n');
    expect(lines.length).toBeLessThanOrEqual(README_MAX_LINES);
  });
});

describe('the link reader', () => {
  it('finds inline, titled and reference links, and none inside code', () => {
    const text = [
      'See [a](docs/a.md) and [b](b.md "title"), ![c](img/c.png).',
      '`[not](code.md)`',
      '```ts',
      'handlers[0](x);',
      '```',
      '[ref]: ../up.md',
    ].join('\n');
    expect(linkTargets(text)).toEqual([
      { line: 1, target: 'docs/a.md' },
      { line: 1, target: 'b.md' },
      { line: 1, target: 'img/c.png' },
      { line: 6, target: '../up.md' },
    ]);
  });

  it('resolves relative paths from the linking file, and skips URLs and anchors', () => {
    expect(resolveLink('apps/x/README.md', '../../docs/product.md#roles')).toBe('docs/product.md');
    expect(resolveLink('docs/README.md', 'protocol/signing.md')).toBe('docs/protocol/signing.md');
    expect(resolveLink('README.md', '/docs/a%20b.md')).toBe('docs/a b.md');
    expect(resolveLink('README.md', 'https://example.com/x.md')).toBeUndefined();
    expect(resolveLink('README.md', '#configuration')).toBeUndefined();
  });

  it("makes GitHub's heading anchors, and none from a heading inside code", () => {
    const text = [
      '# Townhall',
      "## The project's machines",
      '## Rate limits (`rate-limit/`)',
      "### 7. Solana `exact`: USDC with the agent's own key",
      '## Tickets, payments (x402) and the ledger',
      '## Notes',
      '## Notes',
      '```sh',
      '# not a heading',
      '```',
      '<a id="kept-anchor"></a>',
    ].join('\n');
    expect([...headingAnchors(text)]).toEqual([
      'townhall',
      'the-projects-machines',
      'rate-limits-rate-limit',
      '7-solana-exact-usdc-with-the-agents-own-key',
      'tickets-payments-x402-and-the-ledger',
      'notes',
      'notes-1',
      'kept-anchor',
    ]);
  });

  it('reads the anchor a link names, and none from a URL or a bare path', () => {
    expect(anchorOf('docs/operations.md#configuration')).toBe('configuration');
    expect(anchorOf('#faults-as-tested')).toBe('faults-as-tested');
    expect(anchorOf('docs/operations.md')).toBeUndefined();
    expect(anchorOf('https://example.com/a.md#x')).toBeUndefined();
  });
});
