// One current definition per SQL function (issue [16]): each in its own file,
// apps/<service>/src/db/functions/<name>.sql, applied after the migrations by checksum. Migrations
// change tables: none written since then defines a function, and none imports code whose SQL
// could change under it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEPLOYED_BEFORE_FUNCTION_STEP, REPO_ROOT } from '@townhall/testing';

const DEFINITION = /CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+"?([a-z_]+)"?\.([a-z_]+)\s*\(/gi;

/** The files below `folder` (relative to the repository) whose path passes `keep`. */
function filesUnder(folder: string, keep: (path: string) => boolean): string[] {
  return (readdirSync(join(REPO_ROOT, folder), { recursive: true }) as string[])
    .map((file) => join(folder, file))
    .filter((path) => !path.includes('/dist/') && !path.includes('node_modules') && keep(path));
}

const sources = ['apps', 'libs'].flatMap((root) =>
  filesUnder(root, (path) => /^(apps|libs)\/[^/]+\/src\//.test(path) && /\.(ts|sql)$/.test(path)),
);
const migrations = sources.filter((path) => /\/src\/migrations\/\d{13}-[^/]+\.ts$/.test(path));

describe('SQL functions', () => {
  it('are defined once each, outside the migrations, in db/functions/<name>.sql of their schema', () => {
    const definitions = sources
      .filter((path) => !migrations.includes(path))
      .flatMap((path) =>
        [...readFileSync(join(REPO_ROOT, path), 'utf8').matchAll(DEFINITION)].map(([, schema, name]) => ({
          fn: `${schema}.${name}`,
          path,
        })),
      );
    expect(definitions.length).toBeGreaterThan(0);
    for (const { fn, path } of definitions) {
      const [schema, name] = fn.split('.');
      expect(`${fn} in ${path}`).toBe(`${fn} in apps/${schema}/src/db/functions/${name}.sql`);
    }
    const names = definitions.map((definition) => definition.fn);
    expect(names.filter((fn, index) => names.indexOf(fn) !== index)).toEqual([]);
  });

  it('each file of db/functions/ defines the function it is named for, and only it', () => {
    const files = sources.filter((path) => /\/src\/db\/functions\/[^/]+\.sql$/.test(path));
    expect(files.length).toBeGreaterThan(0);
    for (const path of files) {
      const [, schema, name] = /^apps\/([^/]+)\/src\/db\/functions\/([a-z_]+)\.sql$/.exec(path) ?? [];
      const defined = [...readFileSync(join(REPO_ROOT, path), 'utf8').matchAll(DEFINITION)].map(
        ([, s, n]) => `${s}.${n}`,
      );
      expect({ path, defined }).toEqual({ path, defined: [`${schema}.${name}`] });
    }
  });

  it('are not defined by a migration written since they have their own files, nor by code a migration imports (frozen DDL aside)', () => {
    expect(migrations.length).toBeGreaterThan(0);
    for (const path of migrations) {
      const text = readFileSync(join(REPO_ROOT, path), 'utf8');
      // typeorm's types, the frozen outbox tables (outbox-tables-v1.ts to -v3.ts, and what undoes v3)
      // and claim keys (claim-keys-v1.ts, its undoing and claim_former_key's removal): pinned byte for byte.
      const imports = [...text.matchAll(/^import\s[^;]*?from\s+'[^']+';/gm)].map(([statement]) => statement);
      const allowed = (statement: string) =>
        statement.endsWith(`from 'typeorm';`) ||
        statement === `import { outboxTablesV1 } from '@townhall/platform/service';` ||
        statement === `import { outboxTablesV2 } from '@townhall/platform/service';` ||
        statement === `import { outboxTablesV3, undoOutboxTablesV3 } from '@townhall/platform/service';` ||
        statement ===
          `import { claimKeysV1, dropClaimFormerKey, undoClaimKeysV1 } from '@townhall/platform/service';`;
      expect({ path, imports: imports.filter((statement) => !allowed(statement)) }).toEqual({
        path,
        imports: [],
      });
      const written = Number(/\/(\d{13})-/.exec(path)![1]);
      if (written > DEPLOYED_BEFORE_FUNCTION_STEP)
        expect({ path, functions: [...text.matchAll(DEFINITION)].length }).toEqual({ path, functions: 0 });
    }
  });
});
