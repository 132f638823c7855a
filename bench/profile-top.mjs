// `node bench/profile-top.mjs <dir> [top]`: where each app's CPU went in a `BENCH_PROFILE=<dir>
// npm run bench` run. For every V8 .cpuprofile under <dir> (one folder per app), prints the share of
// samples by self time, grouped by function and by package (node_modules/<name>, the project's
// own apps/libs, or node: internals), so a missed target names where its time goes.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const [dir, topArg] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node bench/profile-top.mjs <BENCH_PROFILE dir> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 15);

function* profiles(folder) {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) yield* profiles(path);
    else if (name.endsWith('.cpuprofile')) yield path;
  }
}

/** The package a script belongs to: node_modules/<name>, apps/<x>, libs/<x>, node:, or the engine. */
function packageOf(url) {
  if (!url) return '(engine: gc, idle, native)';
  if (url.startsWith('node:')) return 'node: internals';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1];
  const own = /\/(apps|libs)\/([^/]+)\//.exec(url);
  return own ? `${own[1]}/${own[2]}` : url;
}

function percent(part, whole) {
  return `${((100 * part) / whole).toFixed(1).padStart(5)}%`;
}

for (const file of profiles(dir)) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  for (const id of profile.samples) self.set(id, (self.get(id) ?? 0) + 1);
  const total = profile.samples.length;
  const idle = [...self].filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)');
  const idleSamples = idle.reduce((sum, [, count]) => sum + count, 0);
  const busy = total - idleSamples;
  const functions = new Map();
  const packages = new Map();
  for (const [id, count] of self) {
    const { callFrame } = byId.get(id);
    if (callFrame.functionName === '(idle)') continue;
    const where = callFrame.url
      ? `${callFrame.url
          .replace(/^file:\/\//, '')
          .split('/')
          .slice(-2)
          .join('/')}:${callFrame.lineNumber + 1}`
      : '';
    const name = `${callFrame.functionName || '(anonymous)'} ${where}`.trim();
    functions.set(name, (functions.get(name) ?? 0) + count);
    const pkg = packageOf(callFrame.url);
    packages.set(pkg, (packages.get(pkg) ?? 0) + count);
  }
  console.log(`\n## ${relative(dir, file)}: ${busy} busy samples of ${total}`);
  console.log('by package (self time, share of busy):');
  for (const [pkg, count] of [...packages].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`  ${percent(count, busy)}  ${pkg}`);
  console.log('by function:');
  for (const [name, count] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`  ${percent(count, busy)}  ${name}`);
}
