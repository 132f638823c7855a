import { existsSync } from 'node:fs';

/**
 * Debian's Chromium (`apt-get install chromium`; .ci/run installs it), never a browser download,
 * and how every browser test launches it (playwright-core's `executablePath`, `args`).
 */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where browser tests keep their screenshots (CI keeps the directory as artifacts). */
export const ARTIFACTS_DIR = '/tmp/townhall-ci/artifacts';

export const haveChromium = existsSync(CHROMIUM);
const inCi = !['', '0', 'false'].includes((process.env['CI'] ?? '').toLowerCase());

/**
 * Whether the browser tests of `what` run: with Chromium, or under CI, where its absence must fail
 * them (a skipped browser test would hide a broken page). On a laptop without it they are skipped,
 * and this says so once.
 */
export function browserTestsRun(what: string): boolean {
  if (haveChromium || inCi) return true;
  process.stderr.write(
    `SKIPPED: the ${what} browser test needs Chromium at ${CHROMIUM} (apt-get install -y chromium); set CI=true to make its absence a failure.\n`,
  );
  return false;
}

/** Fails a browser test plainly when CI runs it without Chromium. */
export function requireChromium(): void {
  if (!haveChromium) throw new Error(`CI=true but Chromium is missing at ${CHROMIUM}`);
}
