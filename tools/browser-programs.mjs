// Bundles the programs that run in browsers (TypeScript with the DOM library, e.g. the gateway's
// apps/auth-gateway/src/site/browser/) into one script each, with esbuild: what a page loads from
// its own origin under its CSP. A project names them in its package.json, `townhall.browserPrograms`
// ({ <name>: <entry .ts> }), and gets <project>/dist/browser/<name>.js.
// Run by the build (tools/build.mjs), and by jest before any test (its globalSetup): the unit tests
// serve the pages from the sources without a build, and the pages load these files.
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Every project (apps/*, libs/*) that names browser programs, or only `projects` (absolute folders). */
function programsOf(projects) {
  const folders =
    projects ??
    ['apps', 'libs'].flatMap((group) =>
      readdirSync(join(root, group)).map((name) => join(root, group, name)),
    );
  return folders.flatMap((folder) => {
    const manifest = join(folder, 'package.json');
    if (!existsSync(manifest)) return [];
    const programs = JSON.parse(readFileSync(manifest, 'utf8')).townhall?.browserPrograms ?? {};
    return Object.entries(programs).map(([name, entry]) => ({
      entry: join(folder, entry),
      out: join(folder, 'dist', 'browser', `${name}.js`),
    }));
  });
}

/** The folders of every program's entry: browser code, which SWC leaves to this bundler. */
export function browserFolders() {
  return programsOf().map(({ entry }) => dirname(entry));
}

/**
 * Bundles them; answers how many. Each file is written beside its target and renamed onto it, and
 * only when it changed, so a gateway starting meanwhile (another test) reads a whole file.
 */
export async function bundleBrowserPrograms(projects) {
  const programs = programsOf(projects);
  await Promise.all(
    programs.map(async ({ entry, out }) => {
      const { outputFiles } = await build({
        entryPoints: [entry],
        bundle: true,
        // One classic script, its names kept out of the page's global scope.
        format: 'iife',
        platform: 'browser',
        target: 'es2022',
        // Paths in the bundle's comments are from the repository root, wherever the build runs.
        absWorkingDir: root,
        // Libraries from the workspace come as their TypeScript (the tsconfig's `paths` beside the entry).
        write: false,
        outfile: out,
        charset: 'utf8',
        legalComments: 'eof',
        logLevel: 'warning',
      });
      const text = outputFiles[0].text;
      if (existsSync(out) && readFileSync(out, 'utf8') === text) return;
      mkdirSync(dirname(out), { recursive: true });
      const staged = `${out}.${process.pid}.tmp`;
      writeFileSync(staged, text);
      renameSync(staged, out);
    }),
  );
  return programs.length;
}

/** jest's globalSetup. */
export default async function globalSetup() {
  await bundleBrowserPrograms();
}
