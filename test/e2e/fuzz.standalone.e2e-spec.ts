import { StandaloneProcess, fuzzGateway, fuzzTestTimeoutMs } from '@townhall/testing';

/**
 * The fuzzer (libs/testing/src/fuzz) against the standalone process, `--ephemeral --port 0`: the
 * gateway and every service in one process on PGlite. FUZZ_TARGET_URL fuzzes a Townhall that is
 * already running there instead (its rate limits should be off, and its faucet on).
 */
const target = process.env['FUZZ_TARGET_URL'];

describe('fuzz: the standalone process', () => {
  let standalone: StandaloneProcess | undefined;
  let baseUrl = target ?? '';

  beforeAll(async () => {
    if (target) return;
    // Rate limits off: every request is judged on its content.
    standalone = await StandaloneProcess.start({
      RATE_LIMIT_WRITES_PER_SECOND: '0',
      RATE_LIMIT_READS_PER_SECOND: '0',
    });
    baseUrl = standalone.baseUrl;
  }, 45_000);
  afterAll(async () => {
    await standalone?.stop();
  });

  const running = () => standalone?.alive ?? true;

  it(
    'answers every fuzzed request without a 5xx, with problem+json errors, and refusals change nothing',
    async () => {
      const report = await fuzzGateway({
        baseUrl,
        isAlive: running,
        log: (line) => process.stdout.write(`${line}\n`),
      });
      expect(running()).toBe(true);
      expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
      expect(report.sent).toBeGreaterThan(0);
      // The report printed above has each class's smallest reproduction and FUZZ_SEED / FUZZ_ONLY.
      expect(report.classes.map((failureClass) => failureClass.key)).toEqual([]);
    },
    fuzzTestTimeoutMs(),
  );
});
