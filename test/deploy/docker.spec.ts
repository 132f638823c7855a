// docker/: no Docker engine runs here, so the Dockerfile, .dockerignore and compose file are
// checked statically: a Dockerfile linter (dockerfile-utils), rules of our own in the spirit of
// hadolint's, the Compose Specification's JSON Schema, and what the compose file must wire up.
// entry-commands.spec.ts runs the image's commands themselves.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Ajv } from 'ajv';
import type { Copy } from 'dockerfile-ast';
import { validate as lintDockerfile } from 'dockerfile-utils';
import { parse } from 'yaml';
import { BUS_APPS, busAppOf } from '@townhall/contracts';
import { natsPasswordVariable } from '@townhall/platform';
import { APPS, REPO_ROOT } from '@townhall/testing';
import { execForm, ParsedDockerfile, substitute } from './dockerfile.js';

const ALL_APPS = [APPS.gateway, ...APPS.services];
const dockerfileText = readFileSync(join(REPO_ROOT, 'docker/Dockerfile'), 'utf8');
const dockerfile = new ParsedDockerfile(dockerfileText);

describe('docker/Dockerfile', () => {
  it('passes the Dockerfile linter with no diagnostic', () => {
    const diagnostics = lintDockerfile(dockerfileText).map(
      (diagnostic) => `line ${diagnostic.range.start.line + 1}: ${diagnostic.message}`,
    );
    expect(diagnostics).toEqual([]);
  });

  it('builds from a base pinned to an exact Node 24 (LTS) release of Debian bookworm slim', () => {
    const stageNames = new Set<string>();
    for (const stage of dockerfile.stages) {
      if (!stageNames.has(stage.base)) {
        // No :latest, no floating major: node:24.x.y-bookworm-slim (or the same pinned by digest).
        expect(stage.base).toMatch(/^node:24\.\d+\.\d+-bookworm-slim(@sha256:[0-9a-f]{64})?$/);
      }
      if (stage.name) stageNames.add(stage.name);
    }
    expect(dockerfile.finalStage.base).toMatch(/^node:/);
  });

  it('ends in a non-root, production image that runs the app named by APP', () => {
    const stage = dockerfile.finalStage;
    expect(stage.name).toBe('runtime');
    const image = dockerfile.imageConfig({ APP: 'events' });
    expect(image.user).toBe('node');
    expect(image.workdir).toBe('/app');
    expect(image.env).toMatchObject({ NODE_ENV: 'production', APP: 'events', PROBE_PORT: '9464' });
    expect(image.entrypoint).toEqual([]);
    // The CMD, run by a shell with the image's environment, is `node apps/events/dist/main.js`,
    // exec'd so that node is PID 1 and receives SIGTERM itself.
    expect(image.cmd.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(substitute(image.cmd[2]!, image.env)).toBe('exec node "apps/events/dist/main.js"');
    expect(image.healthcheck).toEqual(['node', 'docker/healthcheck.mjs']);
  });

  it('copies only production dependencies and build output into the final stage', () => {
    const keywords = dockerfile.stages.flatMap((stage) => stage.instructions.map((i) => i.getKeyword()));
    expect(keywords).not.toContain('ADD'); // COPY only
    expect(keywords).not.toContain('ENTRYPOINT'); // so `docker run <image> node apps/<svc>/dist/migrate.js` works
    const prodDeps = dockerfile.stages.find((stage) => stage.name === 'prod-deps')!;
    const install = prodDeps.instructions.map((i) => i.getArgumentsContent() ?? '').join('\n');
    expect(install).toMatch(/npm install --omit=dev\b/);
    expect(install).toContain('--ignore-scripts');
    const copies = dockerfile.finalStage.instructions
      .filter((instruction): instruction is Copy => instruction.getKeyword() === 'COPY')
      .map((copy) =>
        [
          ...copy.getFlags().map((flag) => `--${flag.getName()}=${flag.getValue()}`),
          copy.getArgumentsContent(),
        ].join(' '),
      );
    expect(copies).toEqual([
      '--from=prod-deps /app ./',
      '--from=dist /out ./',
      'docker/healthcheck.mjs ./docker/healthcheck.mjs',
    ]);
    // The dist stage takes each library's and the one app's dist/ and package.json, not the tests.
    const dist = dockerfile.stages.find((stage) => stage.name === 'dist')!;
    const script = dist.instructions.map((i) => i.getArgumentsContent() ?? '').join('\n');
    expect(script).toContain('libs/* "apps/$APP"');
    expect(script).toContain('!= libs/testing');
  });

  it('keeps secrets out of the image: no secret-looking ARG or ENV', () => {
    for (const stage of dockerfile.stages) {
      for (const instruction of stage.instructions) {
        if (!['ARG', 'ENV'].includes(instruction.getKeyword())) continue;
        expect(instruction.getArgumentsContent()).not.toMatch(/PASSWORD|SECRET|TOKEN|DATABASE_URL|REDIS_URL/);
      }
    }
  });

  it('states the HEALTHCHECK and CMD in exec form', () => {
    const final = dockerfile.finalStage.instructions;
    for (const keyword of ['CMD', 'HEALTHCHECK']) {
      const instruction = final.find((candidate) => candidate.getKeyword() === keyword)!;
      expect(() => execForm(instruction)).not.toThrow();
    }
  });
});

/** Docker's .dockerignore rules: later rules win; `!` re-includes; a match on a folder covers it. */
function dockerIgnored(patterns: string[], path: string): boolean {
  let ignored = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const pattern = (negated ? raw.slice(1) : raw).replace(/^\/+|\/+$/g, '');
    const regex = new RegExp(
      `^${pattern
        .split('/')
        .map((part) =>
          part === '**'
            ? '.*'
            : part
                .replace(/[.+^${}()|[\]\\]/g, '\\$&')
                .replace(/\*/g, '[^/]*')
                .replace(/\?/g, '[^/]'),
        )
        .join('/')
        .replace(/\.\*\//g, '(?:.*/)?')}(?:/.*)?$`,
    );
    if (regex.test(path)) ignored = !negated;
  }
  return ignored;
}

describe('.dockerignore', () => {
  const patterns = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', '.git', 'dist', '.nx', 'coverage', '.townhall'].includes(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(relative(REPO_ROOT, path));
    }
  };
  walk(REPO_ROOT);

  it('keeps dependencies, build output, git data and env files out of the context', () => {
    for (const path of [
      'node_modules/x/index.js',
      'apps/events/node_modules/x',
      'apps/events/dist/main.js',
      'libs/platform/dist/index.js',
      '.git/config',
      '.env',
      'apps/events/.env.local',
      'test/e2e/x.e2e-spec.ts',
      'k8s/base/kustomization.yaml',
      'docker/compose.yaml',
      'apps/events/src/main.spec.ts',
    ]) {
      expect([path, dockerIgnored(patterns, path)]).toEqual([path, true]);
    }
  });

  it('keeps everything the build needs', () => {
    const needed = files.filter(
      (path) =>
        /^(apps|libs)\/[^/]+\/(package\.json|src\/.*\.ts)$/.test(path) && !/\.(spec|test)\.ts$/.test(path),
    );
    expect(needed.length).toBeGreaterThan(50);
    needed.push(
      'package.json',
      'package-lock.json',
      '.swcrc',
      'tsconfig.base.json',
      'tools/build.mjs',
      'tools/browser-programs.mjs',
      'docker/healthcheck.mjs',
    );
    expect(needed.filter((path) => dockerIgnored(patterns, path))).toEqual([]);
  });
});

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string; args?: Record<string, string> };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  restart?: string;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
}

describe('docker/compose.yaml', () => {
  const text = readFileSync(join(REPO_ROOT, 'docker/compose.yaml'), 'utf8');
  const compose = parse(text, { merge: true }) as { services: Record<string, ComposeService> };
  const services = compose.services;

  it('validates against the Compose Specification JSON Schema', () => {
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'docker/compose-spec.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    delete schema['$schema']; // draft-07, ajv's default; its URL form here is not one ajv knows
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(schema);
    const valid = validate(compose);
    expect(validate.errors?.map((error) => `${error.instancePath} ${error.message}`) ?? []).toEqual([]);
    expect(valid).toBe(true);
    // The schema catches mistakes: an unknown key fails.
    expect(validate({ services: { x: { image: 'x', helthcheck: {} } } })).toBe(false);
  });

  /** An app's NATS password as the compose file passes it: the variable nats-server reads, or a local default. */
  const natsPasswordOf = (app: string) =>
    expect.stringMatching(new RegExp(`^\\$\\{${natsPasswordVariable(busAppOf(app))}:-`));

  it('runs NATS with JetStream, PostgreSQL 15 and Redis 7, with healthchecks', () => {
    expect(services['nats']?.image).toMatch(/^nats:2\.10\b/);
    expect(services['nats']?.command).toContain('-js');
    // With the apps' authorization, each password in the variable the include reads.
    expect(services['nats']?.command).toEqual(
      expect.arrayContaining(['-c', '/etc/nats/townhall-authorization.conf']),
    );
    expect(services['nats']?.volumes).toContain(
      '../k8s/nats-authorization.conf:/etc/nats/townhall-authorization.conf:ro',
    );
    for (const app of BUS_APPS)
      expect(services['nats']?.environment?.[natsPasswordVariable(app)]).toEqual(natsPasswordOf(app));
    expect(services['postgres']?.image).toMatch(/^postgres:15\b/);
    expect(services['redis']?.image).toMatch(/^redis:7\b/);
    for (const name of ['nats', 'postgres', 'redis'])
      expect(services[name]?.healthcheck?.test?.length).toBeGreaterThan(1);
  });

  it('builds every app from docker/Dockerfile with its APP, and checks its health', () => {
    for (const app of ALL_APPS) {
      const service = services[app]!;
      expect(service.build).toEqual({ context: '..', dockerfile: 'docker/Dockerfile', args: { APP: app } });
      expect(service.image).toBe(`townhall/${app}:dev`);
      expect(service.command).toBeUndefined(); // the image's CMD
      expect(service.healthcheck?.test).toEqual([
        'CMD',
        ...dockerfile.imageConfig({ APP: app }).healthcheck!,
      ]);
    }
    expect(services[APPS.gateway]?.ports).toEqual(['3000:3000']);
    expect(services[APPS.gateway]?.environment).toMatchObject({
      PORT: '3000',
      NATS_URL: 'nats://nats:4222',
      NATS_USER: APPS.gateway,
      NATS_PASSWORD: natsPasswordOf('auth-gateway'),
      REDIS_URL: 'redis://redis:6379',
    });
    // Only the gateway is published.
    const published = Object.entries(services).filter(([, service]) => service.ports?.length);
    expect(published.map(([name]) => name)).toEqual([APPS.gateway]);
  });

  it('migrates every schema with its service image and command before the service starts', () => {
    for (const service of APPS.services) {
      const migrate = services[`${service}-migrate`]!;
      expect(migrate.image).toBe(services[service]!.image);
      expect(migrate.build).toEqual(services[service]!.build);
      expect(migrate.command).toEqual(['node', `apps/${service}/dist/migrate.js`]);
      expect(migrate.restart).toBe('no');
      expect(migrate.depends_on?.['postgres']).toEqual({ condition: 'service_healthy' });
      const app = services[service]!;
      expect(app.depends_on?.[`${service}-migrate`]).toEqual({ condition: 'service_completed_successfully' });
      expect(app.depends_on?.['nats']).toEqual({ condition: 'service_healthy' });
      expect(app.environment).toMatchObject({
        NATS_URL: 'nats://nats:4222',
        NATS_USER: service,
        NATS_PASSWORD: natsPasswordOf(service),
        PROBE_PORT: '9464',
      });
      expect(app.environment?.['DATABASE_URL']).toMatch(/^postgres:\/\/[^@]+@postgres:5432\//);
    }
  });

  it('puts no literal password in the file: dev defaults only through ${VAR:-default}', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        if (/PASSWORD/.test(key))
          expect([name, key, value]).toEqual([name, key, expect.stringMatching(/^\$\{\w+:-/)]);
        const credentials = /^\w+:\/\/[^/@:]*:([^@]*)@/.exec(value);
        if (credentials)
          expect([name, key, credentials[1]]).toEqual([name, key, expect.stringMatching(/^\$\{\w+:-/)]);
      }
    }
  });
});
