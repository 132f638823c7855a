import { Topology, fuzzGateway, fuzzTestTimeoutMs } from '@townhall/testing';

/**
 * The fuzzer (libs/testing/src/fuzz) against the distributed topology: the gateway and every
 * service as separate processes on the real Postgres, Redis and NATS. The faucet is on so that
 * the fixtures can pay; rate limits are off (the topology's default) so that every request is
 * judged on its content.
 */
describe('fuzz: the distributed topology', () => {
  let topology: Topology;

  beforeAll(async () => {
    topology = await Topology.start({ env: { LEDGER_FAUCET: 'true' } });
  });
  afterAll(async () => {
    await topology?.stop();
  });

  const running = () => topology.gateway.running && topology.services.every((service) => service.running);

  it(
    'answers every fuzzed request without a 5xx, with problem+json errors, and refusals change nothing',
    async () => {
      const report = await fuzzGateway({
        baseUrl: topology.baseUrl,
        isAlive: running,
        log: (line) => process.stdout.write(`${line}\n`),
      });
      expect(running()).toBe(true);
      expect((await fetch(`${topology.baseUrl}/readyz`)).status).toBe(200);
      expect(report.sent).toBeGreaterThan(0);
      // The report printed above has each class's smallest reproduction and FUZZ_SEED / FUZZ_ONLY.
      expect(report.classes.map((failureClass) => failureClass.key)).toEqual([]);
    },
    fuzzTestTimeoutMs(),
  );
});
