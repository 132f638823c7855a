// The entry points that end-to-end tests start as processes (every app's main.js, every service's
// migrate.js, the standalone's main.js), each bundled from the build output (dist/) into one file
// with esbuild, for the tests to start instead of dist/ (libs/testing AppProcess and
// StandaloneProcess). An app's dist/ entry imports 1,000 to 1,600 modules; finding, reading and
// linking each one was about half of its start's CPU (0.75 s of an app's, 1 s of the standalone's,
// six apps at once per topology, some 300 processes per e2e run); one file takes 0.3 s.
//
// The bundle is the same code: every module of the build and of its npm packages, in the order
// they load, each keeping the URL it has in dist/ or node_modules/ (`import.meta.url`,
// `__dirname` and `__filename`), so that what a module reads beside itself (SQL functions, the
// package.json, PGlite's WebAssembly, the browser programs) is read where it is; class names are
// kept (TypeORM and Nest name things by them). Left to Node, as the apps load them: the Postgres
// driver and OpenTelemetry (the instrumentation hooks the driver as Node loads it), native
// addons, and the optional packages that Nest and TypeORM load only if installed (none is).
//
// jest's globalSetup of the e2e project: the bundles of one build are made once, in
// node_modules/.cache/townhall/app-bundles/<hash of every dist/ file, the lockfile and this file>,
// and named to the tests by TOWNHALL_TEST_APP_BUNDLES. TOWNHALL_TEST_APP_BUNDLES=off keeps dist/.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const { services, gateway } = manifest.townhall;

/** `<app>/<script>` of every entry point bundled, e.g. `events/migrate.js`. */
export const BUNDLED_ENTRIES = [
  `${gateway}/main.js`,
  ...services.flatMap((service) => [`${service}/main.js`, `${service}/migrate.js`]),
  'standalone/main.js',
];

/** Left to Node: loaded from node_modules as the apps load them. */
const LEFT_TO_NODE = /^(pg|pg-[a-z-]+|@opentelemetry\/.*|litesvm.*)(\/.*)?$/;

function buildHash() {
  const hash = createHash('sha256');
  for (const file of ['package-lock.json', 'tools/app-bundles.mjs'])
    hash.update(`${file}\0`).update(readFileSync(join(root, file)));
  for (const group of ['apps', 'libs'])
    for (const project of readdirSync(join(root, group)).sort()) {
      const dist = join(root, group, project, 'dist');
      if (!existsSync(dist)) continue;
      for (const file of readdirSync(dist, { recursive: true }).map(String).sort()) {
        const path = join(dist, file);
        if (!file.endsWith('.map') && statSync(path).isFile())
          hash.update(`${group}/${project}/${file}\0`).update(readFileSync(path));
      }
    }
  return hash.digest('hex').slice(0, 16);
}

const leftToNode = {
  name: 'left-to-node',
  setup(b) {
    b.onResolve({ filter: /\.node$/ }, (args) => ({
      path: join(args.resolveDir, args.path),
      external: true,
    }));
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'probe' || args.path.startsWith('node:')) return undefined;
      if (LEFT_TO_NODE.test(args.path)) return { path: args.path, external: true };
      const found = await b.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'probe',
      });
      // An optional package that is not installed: loading it fails at run time, as it does in dist/.
      return found.errors.length > 0 ? { path: args.path, external: true } : undefined;
    });
  },
};

const keptLocations = {
  name: 'kept-locations',
  setup(b) {
    b.onLoad({ filter: /\.(m?js|cjs)$/ }, (args) => {
      let code = readFileSync(args.path, 'utf8');
      const url = JSON.stringify(pathToFileURL(args.path).href);
      if (code.includes('import.meta'))
        code = code
          .replaceAll('import.meta.url', url)
          .replaceAll('import.meta.filename', JSON.stringify(args.path))
          .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)));
      if (/\b__(dirname|filename)\b/.test(code))
        code = `var __filename = ${JSON.stringify(args.path)}, __dirname = ${JSON.stringify(dirname(args.path))};\n${code}`;
      return { contents: code, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/** Makes the bundles of this build if they are not there yet; answers their folder. */
export async function appBundles() {
  const folder = join(root, 'node_modules/.cache/townhall/app-bundles', buildHash());
  if (existsSync(folder)) return folder;
  mkdirSync(dirname(folder), { recursive: true });
  const entryPoints = {};
  for (const entry of BUNDLED_ENTRIES) {
    const [app, script] = entry.split('/');
    const source = join(root, 'apps', app, 'dist', script);
    if (!existsSync(source)) throw new Error(`${source} is missing: build first (npm run build)`);
    entryPoints[entry.replace(/\.js$/, '')] = source;
  }
  const making = `${folder}.${process.pid}.making`;
  rmSync(making, { recursive: true, force: true });
  await build({
    entryPoints,
    outdir: making,
    bundle: true,
    // One file per entry: esbuild's code splitting may run shared modules before what the entry
    // imports first (reflect-metadata).
    format: 'esm',
    platform: 'node',
    target: 'node22',
    keepNames: true,
    plugins: [leftToNode, keptLocations],
    // What a CommonJS module of a package requires that is left to Node, Node finds from here.
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
    logLevel: 'error',
  });
  try {
    renameSync(making, folder);
  } catch (error) {
    // Another jest process made them meanwhile: theirs are the same.
    if (!existsSync(folder)) throw error;
    rmSync(making, { recursive: true, force: true });
  }
  // Bundles of other builds older than a day go.
  const parent = dirname(folder);
  for (const name of readdirSync(parent)) {
    const path = join(parent, name);
    if (path !== folder && Date.now() - statSync(path).mtimeMs > 86_400_000)
      rmSync(path, { recursive: true, force: true });
  }
  return folder;
}

/** jest's globalSetup of the e2e project. */
export default async function globalSetup() {
  if (process.env.TOWNHALL_TEST_APP_BUNDLES === 'off') return;
  process.env.TOWNHALL_TEST_APP_BUNDLES = await appBundles();
}
