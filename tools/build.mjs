// Compiles every app and lib (src/**/*.ts, tests excluded) to <project>/dist with SWC.
// One process, no type-checking (that is `npm run typecheck`): a full build takes about a second.
// `node tools/build.mjs apps/cli libs/sdk` builds only those projects.
import { readFileSync, readdirSync, mkdirSync, writeFileSync, rmSync, existsSync, statSync } from 'node:fs';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformFile } from '@swc/core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const swcrc = JSON.parse(readFileSync(join(root, '.swcrc'), 'utf8'));
delete swcrc.$schema;

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (
      entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.d.ts') &&
      !/\.(spec|test)\.ts$/.test(entry.name)
    )
      yield path;
  }
}

const projects = ['apps', 'libs'].flatMap((group) =>
  existsSync(join(root, group))
    ? readdirSync(join(root, group))
        .map((name) => join(root, group, name))
        .filter((dir) => existsSync(join(dir, 'src')) && statSync(join(dir, 'src')).isDirectory())
    : [],
);

const only = process.argv.slice(2).map((arg) => join(root, arg).replace(/\/+$/, ''));
if (only.length > 0) {
  const unknown = only.filter((dir) => !projects.includes(dir));
  if (unknown.length > 0)
    throw new Error(`not a project: ${unknown.map((dir) => relative(root, dir)).join(', ')}`);
  projects.splice(0, projects.length, ...only);
}

const started = Date.now();
let files = 0;
await Promise.all(
  projects.map(async (project) => {
    const out = join(project, 'dist');
    rmSync(out, { recursive: true, force: true });
    const src = join(project, 'src');
    await Promise.all(
      [...sources(src)].map(async (file) => {
        const target = join(out, relative(src, file)).replace(/\.ts$/, '.js');
        const { code, map } = await transformFile(file, {
          ...swcrc,
          swcrc: false,
          sourceFileName: relative(dirname(target), file),
        });
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, `${code}\n//# sourceMappingURL=${target.split('/').pop()}.map\n`);
        if (map) writeFileSync(`${target}.map`, map);
        files += 1;
      }),
    );
  }),
);
console.log(`built ${files} files in ${projects.length} projects in ${Date.now() - started} ms`);
