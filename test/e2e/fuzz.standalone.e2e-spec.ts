import { StandaloneProcess, freePort, fuzzGateway, fuzzTestTimeoutMs } from '@townhall/testing';

/**
 * The fuzzer (libs/testing/src/fuzz) against the standalone process, `--ephemeral --port 0`: the
 * gateway and every service in one process on PGlite, selling in USDC on its local Solana
 * (`--solana-local`), so that payments are the official x402 client's, real and tampered, and
 * every PAYMENT-SIGNATURE goes through the server's Solana checks (the distributed run fuzzes the
 * ledger's). FUZZ_TARGET_URL fuzzes a Townhall that is already running there instead (its rate
 * limits should be off, and its faucet on; FUZZ_SOLANA_RPC names its chain's RPC if it has one).
 */
const target = process.env['FUZZ_TARGET_URL'];

describe('fuzz: the standalone process', () => {
  let standalone: StandaloneProcess | undefined;
  let baseUrl = target ?? '';
  let solanaRpcUrl = target ? process.env['FUZZ_SOLANA_RPC'] : undefined;

  beforeAll(async () => {
    if (target) return;
    // Rate limits off: every request is judged on its content.
    const rpcPort = await freePort();
    standalone = await StandaloneProcess.start({
      RATE_LIMIT_WRITES_PER_SECOND: '0',
      RATE_LIMIT_READS_PER_SECOND: '0',
      RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: '0',
      AUTH_FAILURES_PER_ADDRESS: '0',
      X402_FACILITATOR: 'solana-local',
      SOLANA_LOCAL_RPC_PORT: String(rpcPort),
    });
    baseUrl = standalone.baseUrl;
    solanaRpcUrl = `http://127.0.0.1:${rpcPort}`;
  });
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
        ...(solanaRpcUrl ? { solanaRpcUrl } : {}),
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
