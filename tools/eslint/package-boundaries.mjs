// The ESLint rule `townhall/package-boundaries`: which workspace package may import which, and
// every package declares what it imports. The boundaries come from each package.json's nx tags
// (one source: `npx nx show projects --with-tag type:service` reads the same tags):
//
//   type:lib      libs/*                         may import libs
//   type:service  apps/<service> (a NATS service) may import libs
//   type:gateway  apps/auth-gateway              may import libs
//   type:app      apps/cli                       may import libs
//   type:host     apps/standalone                may import libs, services and the gateway (it composes them)
//   scope:test    libs/testing                   only test files may import it
//
// And for every import of a package (a workspace one or from npm), the importing workspace
// package lists it in its package.json: `dependencies` for its code, `dependencies` or
// `devDependencies` for its tests (which may also use the root's devDependencies: jest,
// fast-check, ...). A relative import never leaves its package. Files outside every workspace
// package (test/, tools/, bench/) belong to the root package: they may import any workspace
// package, and what they import from npm is in the root package.json.
// Why our own rule: @nx/enforce-module-boundaries has no release for Nx 24, and path-based
// plugins (eslint-plugin-boundaries, import-x) need a TypeScript resolver with native binaries
// to map `@townhall/x` to files; package names and package.json files are all this needs.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');

/** Which kinds of workspace package each kind may import. */
export const ALLOWED = {
  'type:lib': ['type:lib'],
  'type:service': ['type:lib'],
  'type:gateway': ['type:lib'],
  'type:app': ['type:lib'],
  'type:host': ['type:lib', 'type:service', 'type:gateway'],
};
const TEST_ONLY = 'scope:test';
const BUILTINS = new Set(builtinModules);

/** Test code: spec files and anything under a test/ folder of a package. */
export function isTestFile(pathInPackage) {
  return /\.(spec|int-spec|e2e-spec)\.[cm]?[jt]s$/.test(pathInPackage) || /(^|\/)test\//.test(pathInPackage);
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
export function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** The root manifest and every workspace package (its folder, name, kind and manifest). */
export function loadWorkspace(root) {
  const manifest = readJson(join(root, 'package.json'));
  const packages = [];
  for (const pattern of manifest.workspaces ?? []) {
    const parent = join(root, pattern.replace(/\/\*$/, ''));
    for (const entry of readdirSync(parent, { withFileTypes: true })) {
      const file = join(parent, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(file)) continue;
      const pkg = readJson(file);
      const tags = pkg.nx?.tags ?? [];
      const kind = tags.find((tag) => tag in ALLOWED);
      if (!kind)
        throw new Error(`${relative(root, file)}: nx tags name no kind (${Object.keys(ALLOWED).join(', ')})`);
      packages.push({
        dir: join(parent, entry.name),
        name: pkg.name,
        kind,
        testOnly: tags.includes(TEST_ONLY),
        manifest: pkg,
      });
    }
  }
  return { root, manifest, packages, byName: new Map(packages.map((pkg) => [pkg.name, pkg])) };
}

const declares = (manifest, name, section) => Boolean(manifest?.[section]?.[name]);

/** What is wrong with `specifier`, imported by `file` (absolute), or undefined. */
export function checkImport(workspace, file, specifier) {
  if (specifier.startsWith('node:') || BUILTINS.has(packageOf(specifier))) return undefined;
  const owner = workspace.packages.find((pkg) => file.startsWith(pkg.dir + sep));
  const test = owner ? owner.testOnly || isTestFile(relative(owner.dir, file)) : true;

  if (specifier.startsWith('.')) {
    const target = resolve(dirname(file), specifier);
    const reached = workspace.packages.find((pkg) => target === pkg.dir || target.startsWith(pkg.dir + sep));
    if (reached !== owner)
      return {
        messageId: 'relativeEscape',
        data: { specifier, target: reached?.name ?? 'the root package' },
      };
    return undefined;
  }

  const name = packageOf(specifier);
  const target = workspace.byName.get(name);
  if (!owner) {
    // The root package (test/, tools/, bench/): any workspace package; npm packages from its manifest.
    if (target) return undefined;
    const { manifest } = workspace;
    if (declares(manifest, name, 'dependencies') || declares(manifest, name, 'devDependencies'))
      return undefined;
    return { messageId: 'undeclared', data: { name, manifest: 'package.json', section: 'devDependencies' } };
  }
  if (target && target !== owner) {
    if (target.testOnly && !test) return { messageId: 'testOnly', data: { name } };
    if (!target.testOnly && !ALLOWED[owner.kind].includes(target.kind))
      return {
        messageId: 'forbidden',
        data: { owner: owner.name, ownerKind: owner.kind, name, kind: target.kind },
      };
  }
  if (target === owner) return undefined;
  const own = owner.manifest;
  const declared = test
    ? declares(own, name, 'dependencies') ||
      declares(own, name, 'devDependencies') ||
      (!target && declares(workspace.manifest, name, 'devDependencies'))
    : declares(own, name, 'dependencies');
  if (declared) return undefined;
  return {
    messageId: 'undeclared',
    data: {
      name,
      manifest: relative(workspace.root, join(owner.dir, 'package.json')),
      section: test ? 'devDependencies' : 'dependencies',
    },
  };
}

const workspaces = new Map();
function workspaceFor(root) {
  if (!workspaces.has(root)) workspaces.set(root, loadWorkspace(root));
  return workspaces.get(root);
}

export const packageBoundaries = {
  meta: {
    type: 'problem',
    docs: {
      description: 'Workspace packages import only what their kind allows, and declare what they import',
    },
    schema: [],
    messages: {
      relativeEscape:
        "'{{specifier}}' reaches into {{target}} by a relative path: import it by its package name",
      forbidden: '{{owner}} ({{ownerKind}}) may not import {{name}} ({{kind}})',
      testOnly: '{{name}} is for tests only: import it from a spec file or a test/ folder',
      undeclared: "'{{name}}' is imported but not declared: add it to {{section}} in {{manifest}}",
    },
  },
  create(context) {
    const workspace = workspaceFor(REPO_ROOT);
    const file = context.physicalFilename;
    const check = (source) => {
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
      const problem = checkImport(workspace, file, source.value);
      if (problem) context.report({ node: source, ...problem });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

export default { rules: { 'package-boundaries': packageBoundaries } };
