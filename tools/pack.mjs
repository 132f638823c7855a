// Builds the publishable packages: @townhall/sdk and @townhall/cli, as npm tarballs in
// build/packages/. The workspace packages stay private (their exports point at source for the
// monorepo); this writes the form users install: one ESM bundle per entry (esbuild), one .d.ts
// per entry (rollup-plugin-dts), the workspace libs they use (auth, contracts, x402) bundled in,
// and `dependencies` with exactly the npm packages the bundle still imports.
//   node tools/pack.mjs            both packages
//   node tools/pack.mjs --out DIR  tarballs into DIR
// Publishing is `npm publish build/packages/townhall-sdk-<version>.tgz` (then the CLI's).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const outIndex = process.argv.indexOf('--out');
const outDir = resolve(outIndex > 0 ? process.argv[outIndex + 1] : join(root, 'build/packages'));

/** The workspace libs a package carries inside its bundle rather than depending on them. */
const BUNDLED_LIBS = ['@townhall/auth', '@townhall/contracts', '@townhall/x402'];

const LICENSE = join(root, 'LICENSE');
const REPOSITORY = { type: 'git', url: 'git+https://github.com/townhall-agents/townhall.git' };

/**
 * What each package is: its workspace folder, entries (subpath -> source), the bin, the
 * packages it depends on rather than bundles (the CLI uses the published SDK, not a copy).
 */
const PACKAGES = [
  {
    name: '@townhall/sdk',
    folder: 'libs/sdk',
    tarball: 'townhall-sdk',
    description:
      "Townhall's agent SDK: an Ed25519 agent key, service-auth-v1 signed requests, typed results, and x402 payments on the ledger and in USDC on Solana with the same key.",
    platform: 'neutral',
    entries: {
      '.': 'src/index.ts',
      './key-file': 'src/key-file.ts',
      './x402': 'src/x402.ts',
      './solana': 'src/solana.ts',
    },
    keywords: ['townhall', 'agents', 'ed25519', 'x402', 'sdk'],
  },
  {
    name: '@townhall/cli',
    folder: 'apps/cli',
    tarball: 'townhall-cli',
    description:
      'The townhall command: agent keys, events, tickets, the live stage, Q&A, polls, the ledger and a demo AMA.',
    platform: 'node',
    entries: { '.': 'src/index.ts' },
    bin: { townhall: 'src/main.ts' },
    dependsOn: ['@townhall/sdk'],
    keywords: ['townhall', 'agents', 'cli', 'ed25519', 'x402'],
  },
];

/** `@townhall/<lib>[/<sub>]` resolves to that lib's TypeScript source: the bundle is built from source. */
function workspaceSource(dependsOn) {
  return {
    name: 'workspace-source',
    setup(b) {
      b.onResolve({ filter: /^@townhall\// }, (args) => {
        const [, lib, sub] = /^@townhall\/([a-z0-9-]+)(?:\/(.+))?$/.exec(args.path) ?? [];
        if (dependsOn.some((name) => args.path === name || args.path.startsWith(`${name}/`)))
          return { path: args.path, external: true };
        return { path: join(root, 'libs', lib, 'src', `${sub ?? 'index'}.ts`) };
      });
    },
  };
}

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

async function bundleJs(pkg, staging) {
  const entryPoints = Object.fromEntries(
    [
      ...Object.entries(pkg.entries).map(([subpath, src]) => [entryName(subpath), src]),
      ...Object.entries(pkg.bin ?? {}).map(([name, src]) => [`bin/${name}`, src]),
    ].map(([name, src]) => [name, join(root, pkg.folder, src)]),
  );
  const result = await build({
    entryPoints,
    outdir: join(staging, 'dist'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: pkg.platform,
    target: 'es2022',
    mainFields: ['module', 'main'],
    conditions: ['import', 'default'],
    // Every npm package stays an import (a dependency); `node:` builtins too.
    external: ['node:*'],
    plugins: [
      workspaceSource(pkg.dependsOn ?? []),
      {
        name: 'npm-external',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith('@townhall/') || args.path.startsWith('node:')
              ? undefined
              : { path: args.path, external: true },
          );
        },
      },
    ],
    banner: {},
    sourcemap: false,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  const imported = new Set();
  for (const output of Object.values(result.metafile.outputs))
    for (const { path, external } of output.imports)
      if (external && !path.startsWith('node:')) imported.add(packageName(path));
  return [...imported].sort();
}

function entryName(subpath) {
  return subpath === '.' ? 'index' : subpath.slice(2);
}

async function bundleTypes(pkg, staging) {
  for (const [subpath, src] of Object.entries(pkg.entries)) {
    const bundle = await rollup({
      input: join(root, pkg.folder, src),
      external: (id) =>
        /^[^./]/.test(id) && !BUNDLED_LIBS.some((lib) => id === lib || id.startsWith(`${lib}/`)),
      plugins: [
        dts({
          tsconfig: join(root, 'tsconfig.base.json'),
          includeExternal: BUNDLED_LIBS,
          compilerOptions: { types: [] },
        }),
      ],
      onwarn(warning, warn) {
        if (warning.code !== 'UNRESOLVED_IMPORT') warn(warning);
      },
    });
    await bundle.write({ file: join(staging, 'dist', `${entryName(subpath)}.d.ts`), format: 'es' });
    await bundle.close();
  }
}

function dependencyVersions(names, workspaceVersion) {
  const versions = {};
  for (const name of names) {
    if (name.startsWith('@townhall/')) versions[name] = workspaceVersion;
    else if (rootManifest.dependencies?.[name]) versions[name] = rootManifest.dependencies[name];
    else throw new Error(`the bundle imports ${name}, which the root package.json does not depend on`);
  }
  return versions;
}

async function pack(pkg) {
  const workspace = JSON.parse(readFileSync(join(root, pkg.folder, 'package.json'), 'utf8'));
  const staging = join(outDir, 'staging', pkg.tarball);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const imported = await bundleJs(pkg, staging);
  await bundleTypes(pkg, staging);
  for (const name of Object.keys(pkg.bin ?? {})) {
    const file = join(staging, 'dist', 'bin', `${name}.js`);
    const code = readFileSync(file, 'utf8').replace(/^#!.*\n/, '');
    writeFileSync(file, `#!/usr/bin/env node\n${code}`);
  }
  const version = workspace.version;
  const manifest = {
    name: pkg.name,
    version,
    description: pkg.description,
    keywords: pkg.keywords,
    license: 'Apache-2.0',
    repository: { ...REPOSITORY, directory: pkg.folder },
    type: 'module',
    engines: rootManifest.engines,
    sideEffects: false,
    exports: Object.fromEntries(
      Object.keys(pkg.entries).map((subpath) => [
        subpath,
        { types: `./dist/${entryName(subpath)}.d.ts`, default: `./dist/${entryName(subpath)}.js` },
      ]),
    ),
    ...(pkg.bin
      ? { bin: Object.fromEntries(Object.keys(pkg.bin).map((name) => [name, `dist/bin/${name}.js`])) }
      : {}),
    types: './dist/index.d.ts',
    files: ['dist', 'README.md', 'LICENSE'],
    dependencies: dependencyVersions(imported, version),
  };
  writeFileSync(join(staging, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  copyFileSync(join(root, pkg.folder, 'README.md'), join(staging, 'README.md'));
  copyFileSync(LICENSE, join(staging, 'LICENSE'));
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', outDir], {
      cwd: staging,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  return {
    name: pkg.name,
    version,
    tarball: join(outDir, packed.filename),
    files: packed.files.length,
    size: packed.size,
  };
}

mkdirSync(outDir, { recursive: true });
const started = Date.now();
const packed = [];
for (const pkg of PACKAGES) packed.push(await pack(pkg));
rmSync(join(outDir, 'staging'), { recursive: true, force: true });
for (const p of packed)
  console.log(
    `${p.name}@${p.version}: ${relative(process.cwd(), p.tarball)} (${p.files} files, ${p.size} bytes)`,
  );
console.log(`packed ${packed.length} packages in ${Date.now() - started} ms`);
