// The Dockerfile's file-shuffling stages, run outside Docker: the `manifests` stage's script and
// the `dist` stage's script (for every APP) run from the repository root (after `npm run build`),
// with their output folder moved under /tmp. The image then holds every package.json at its path,
// and, for each app, its dist/ plus every library it imports, and nothing of libs/testing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { APPS, compileCacheEnv, REPO_ROOT } from '@townhall/testing';
import { ParsedDockerfile } from './dockerfile.js';

const ALL_APPS = [APPS.gateway, ...APPS.services];
const dockerfile = new ParsedDockerfile(readFileSync(join(REPO_ROOT, 'docker/Dockerfile'), 'utf8'));
const work = mkdtempSync(join(tmpdir(), 'townhall-image-'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The single RUN of a stage, with its absolute output folder replaced by `target`. */
function stageScript(stage: string, folder: string, target: string): string {
  const runs = dockerfile.stages
    .find((candidate) => candidate.name === stage)!
    .instructions.filter((instruction) => instruction.getKeyword() === 'RUN');
  expect(runs).toHaveLength(1);
  const script = runs[0]!.getArgumentsContent()!;
  expect(script).toContain(folder);
  return script.replaceAll(folder, target);
}

function run(script: string, env: Record<string, string> = {}) {
  return spawnSync('/bin/sh', ['-c', script], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...compileCacheEnv(), ...env },
    encoding: 'utf8',
  });
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

it('the manifests stage collects every package.json at its path, and the lockfile', () => {
  const out = join(work, 'manifests');
  const result = run(stageScript('manifests', '/manifests', out));
  expect([result.status, result.stderr]).toEqual([0, '']);
  const expected = ['package.json', 'package-lock.json'];
  for (const group of ['apps', 'libs']) {
    for (const name of readdirSync(join(REPO_ROOT, group))) {
      if (existsSync(join(REPO_ROOT, group, name, 'package.json')))
        expected.push(`${group}/${name}/package.json`);
    }
  }
  expect(files(out)).toEqual(expected.sort());
});

it.each(ALL_APPS)('the dist stage for APP=%s takes its dist/ and every library it imports', (app) => {
  if (!existsSync(join(REPO_ROOT, `apps/${app}/dist/main.js`)))
    throw new Error('build first (npm run build)');
  const out = join(work, app);
  const result = run(stageScript('dist', '/out', out), { APP: app });
  expect([result.status, result.stderr]).toEqual([0, '']);

  const copied = files(out);
  const projects = [...new Set(copied.map((path) => path.split('/').slice(0, 2).join('/')))].sort();
  const libs = readdirSync(join(REPO_ROOT, 'libs')).filter((lib) => lib !== 'testing');
  expect(projects).toEqual([`apps/${app}`, ...libs.map((lib) => `libs/${lib}`)].sort());
  for (const project of projects) {
    expect(copied).toContain(`${project}/package.json`);
    expect(
      copied.filter((path) => path.startsWith(`${project}/`) && path !== `${project}/package.json`),
    ).toEqual(copied.filter((path) => path.startsWith(`${project}/dist/`)));
  }
  expect(copied).toContain(`apps/${app}/dist/main.js`);
  if (app !== APPS.gateway) expect(copied).toContain(`apps/${app}/dist/migrate.js`);

  // Every @townhall/<lib>[/<entry>] the copied code imports is in the image, as its package exports it.
  const imports = new Set<string>();
  for (const path of copied.filter((file) => file.endsWith('.js'))) {
    const code = readFileSync(join(out, path), 'utf8');
    for (const match of code.matchAll(
      /(?:from\s*|import\(\s*)['"](@townhall\/[a-z0-9-]+(?:\/[^'"]+)?)['"]/g,
    )) {
      imports.add(match[1]!);
    }
  }
  expect(imports.size).toBeGreaterThan(0);
  for (const specifier of imports) {
    const [, name, entry] = /^@townhall\/([a-z0-9-]+)(\/.+)?$/.exec(specifier)!;
    expect([specifier, copied.includes(`libs/${name}/package.json`)]).toEqual([specifier, true]);
    const manifest = JSON.parse(readFileSync(join(out, `libs/${name}/package.json`), 'utf8')) as {
      exports: Record<string, { default: string }>;
    };
    const target = manifest.exports[`.${entry ?? ''}`]?.default;
    expect([specifier, target !== undefined && existsSync(join(out, `libs/${name}`, target))]).toEqual([
      specifier,
      true,
    ]);
  }
});

it.each(['', 'standalone', 'cli', 'nope'])('the dist stage refuses APP=%j', (app) => {
  const result = run(stageScript('dist', '/out', join(work, `refused-${app || 'empty'}`)), { APP: app });
  expect(result.status).not.toBe(0);
  expect(result.stderr).toContain('--build-arg APP=');
});
