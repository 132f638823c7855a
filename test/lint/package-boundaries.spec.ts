// The package boundaries are enforced by lint (tools/eslint/package-boundaries.mjs): the rule on
// its own, case by case, and the repository's real ESLint configuration refusing a wrong import.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint, RuleTester } from 'eslint';
import ts from 'typescript';
import tseslint from 'typescript-eslint';
import { REPO_ROOT } from '@townhall/testing';
import { loadWorkspace, packageBoundaries, packageOf } from '../../tools/eslint/package-boundaries.mjs';

const at = (path: string) => join(REPO_ROOT, path);
const code = (specifier: string) => `import { thing } from '${specifier}';\nexport { thing };\n`;

const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });

describe('townhall/package-boundaries', () => {
  tester.run('package-boundaries', packageBoundaries, {
    valid: [
      // A service imports the libs it declares; the host composes services and the gateway.
      { filename: at('apps/events/src/any.ts'), code: code('@townhall/contracts') },
      { filename: at('apps/events/src/any.ts'), code: code('typeorm') },
      { filename: at('apps/events/src/any.ts'), code: code('node:crypto') },
      { filename: at('apps/events/src/any.ts'), code: code('./series/recurrence.js') },
      { filename: at('apps/standalone/src/any.ts'), code: code('@townhall/events/service') },
      { filename: at('apps/standalone/src/any.ts'), code: code('@townhall/auth-gateway/embedded') },
      // Tests may use the test library and the root's dev tools.
      { filename: at('apps/events/src/any.spec.ts'), code: code('@townhall/testing') },
      { filename: at('apps/events/test/any.int-spec.ts'), code: code('fast-check') },
      // The root package's tests compose anything.
      { filename: at('test/e2e/any.e2e-spec.ts'), code: code('@townhall/ticketing/service') },
    ],
    invalid: [
      {
        filename: at('libs/contracts/src/any.ts'),
        code: code('@townhall/events/service'),
        errors: [{ messageId: 'forbidden' }],
      },
      {
        filename: at('apps/events/src/any.ts'),
        code: code('@townhall/ticketing/service'),
        errors: [{ messageId: 'forbidden' }],
      },
      {
        filename: at('apps/auth-gateway/src/any.ts'),
        code: code('@townhall/directory/service'),
        errors: [{ messageId: 'forbidden' }],
      },
      {
        filename: at('apps/cli/src/any.ts'),
        code: code('@townhall/auth-gateway/embedded'),
        errors: [{ messageId: 'forbidden' }],
      },
      {
        filename: at('apps/events/src/any.ts'),
        code: code('@townhall/testing'),
        errors: [{ messageId: 'testOnly' }],
      },
      {
        filename: at('apps/events/src/any.ts'),
        code: code('../../ticketing/src/service.js'),
        errors: [{ messageId: 'relativeEscape' }],
      },
      {
        filename: at('test/e2e/any.e2e-spec.ts'),
        code: code('../../apps/events/src/service.js'),
        errors: [{ messageId: 'relativeEscape' }],
      },
      {
        // Declared nowhere in apps/directory/package.json.
        filename: at('apps/directory/src/any.ts'),
        code: code('@townhall/x402'),
        errors: [{ messageId: 'undeclared' }],
      },
      {
        filename: at('apps/directory/src/any.ts'),
        code: code('rrule-temporal'),
        errors: [{ messageId: 'undeclared' }],
      },
      {
        // A dev tool of the root is for tests, not for code.
        filename: at('apps/events/src/any.ts'),
        code: code('fast-check'),
        errors: [{ messageId: 'undeclared' }],
      },
      {
        filename: at('apps/events/src/any.ts'),
        code: `export * from '@townhall/engagement/service';\nconst m = await import('@townhall/ticketing/service');\nexport { m };\n`,
        errors: [{ messageId: 'forbidden' }, { messageId: 'forbidden' }],
      },
    ],
  });
});

describe("the repository's ESLint configuration", () => {
  const eslint = new ESLint({ cwd: REPO_ROOT });
  const messages = async (path: string, text: string) =>
    (await eslint.lintText(text, { filePath: at(path) }))[0]!.messages
      .filter((message) => message.ruleId === 'townhall/package-boundaries')
      .map((message) => message.message);

  it('fails a service that imports another service', async () => {
    expect(await messages('apps/events/src/wrong-import.ts', code('@townhall/ticketing/service'))).toEqual([
      '@townhall/events (type:service) may not import @townhall/ticketing (type:service)',
    ]);
  });

  it('fails a lib that imports an app, and passes the host composing both', async () => {
    expect(
      await messages('libs/platform/src/wrong-import.ts', code('@townhall/auth-gateway/embedded')),
    ).toHaveLength(1);
    expect(await messages('apps/standalone/src/right-import.ts', code('@townhall/events/service'))).toEqual(
      [],
    );
  });
});

describe('the workspace manifests', () => {
  /** Every package a workspace package's files import, by name (no relative or node: imports). */
  function importsOf(dir: string): Set<string> {
    const found = new Set<string>();
    const walk = (folder: string) => {
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        if (['node_modules', 'dist'].includes(entry.name) || entry.name.startsWith('.')) continue;
        const path = join(folder, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.(ts|mts|mjs|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
          for (const { fileName } of ts.preProcessFile(readFileSync(path, 'utf8'), true, true).importedFiles)
            if (!fileName.startsWith('.') && !fileName.startsWith('node:')) found.add(packageOf(fileName));
        }
      }
    };
    walk(dir);
    return found;
  }

  it('declare no dependency their package does not import (the lint rule checks the other way)', () => {
    const unused: string[] = [];
    for (const pkg of loadWorkspace(REPO_ROOT).packages) {
      const imported = importsOf(pkg.dir);
      const declared = [
        ...Object.keys(pkg.manifest.dependencies ?? {}),
        ...Object.keys(pkg.manifest.devDependencies ?? {}),
      ];
      for (const name of declared) if (!imported.has(name)) unused.push(`${pkg.name}: ${name}`);
    }
    expect(unused).toEqual([]);
  });
});
