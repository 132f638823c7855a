// Compiles every app and lib (src/**/*.ts, tests excluded) to <project>/dist with SWC, then bundles
// the programs that run in browsers (tools/browser-programs.mjs: esbuild, <project>/dist/browser/).
// One process, no type-checking (that is `npm run typecheck`): a full build takes about a second.
// `node tools/build.mjs apps/cli libs/sdk` builds only those projects. A full build whose inputs
// (every project's sources, the lockfile, the build's own tools) are those of the last one leaves
// dist/ as it is: `npm start` then touches nothing that running processes load.
import {
  copyFileSync,
  readFileSync,
  readdirSync,
  mkdirSync,
  writeFileSync,
  rmSync,
  existsSync,
  statSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformFile } from '@swc/core';
import { browserFolders, bundleBrowserPrograms } from './browser-programs.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const swcrc = JSON.parse(readFileSync(join(root, '.swcrc'), 'utf8'));
delete swcrc.$schema;

// Browser code is not compiled here: esbuild bundles it (browser-programs.mjs).
const skipped = new Set(browserFolders());

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skipped.has(path)) yield* sources(path);
    } else if (
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

const allProjects = [...projects];
const only = process.argv.slice(2).map((arg) => join(root, arg).replace(/\/+$/, ''));
if (only.length > 0) {
  const unknown = only.filter((dir) => !projects.includes(dir));
  if (unknown.length > 0)
    throw new Error(`not a project: ${unknown.map((dir) => relative(root, dir)).join(', ')}`);
  projects.splice(0, projects.length, ...only);
}

const started = Date.now();
// What every output depends on: browser programs bundle other projects' sources and npm packages.
const inputs = createHash('sha256');
for (const file of [
  '.swcrc',
  'package-lock.json',
  'tools/build.mjs',
  'tools/browser-programs.mjs',
  'tsconfig.base.json',
])
  inputs.update(`${file}\0`).update(readFileSync(join(root, file)));
for (const project of allProjects)
  for (const file of readdirSync(join(project, 'src'), { recursive: true }).sort()) {
    const path = join(project, 'src', String(file));
    if (statSync(path).isFile()) inputs.update(`${relative(root, path)}\0`).update(readFileSync(path));
  }
const stamp = inputs.digest('hex');
const stampFile = (project) => join(project, 'dist', '.build-stamp');
const stampOf = (project) => (existsSync(stampFile(project)) ? readFileSync(stampFile(project), 'utf8') : '');
if (only.length === 0 && projects.every((project) => stampOf(project) === stamp)) {
  console.log(
    `up to date: ${projects.length} projects, nothing changed since the last build (${Date.now() - started} ms)`,
  );
  process.exit(0);
}
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
    // SQL files (a service's functions, src/db/functions/*.sql) go as they are: its migrate command applies them.
    for (const file of readdirSync(src, { recursive: true }).filter((name) => name.endsWith('.sql'))) {
      mkdirSync(dirname(join(out, file)), { recursive: true });
      copyFileSync(join(src, file), join(out, file));
    }
  }),
);
const bundles = await bundleBrowserPrograms(projects);
for (const project of projects) writeFileSync(stampFile(project), stamp);
console.log(
  `built ${files} files and ${bundles} browser programs in ${projects.length} projects in ${Date.now() - started} ms`,
);
