import { APPS, Topology } from '@townhall/testing';
import {
  aStage,
  burst,
  convergenceMs,
  expectOnlyRetryableFailures,
  expectWhole,
  fundedAgents,
  report,
  retryFailed,
  summary,
  type Write,
} from './workload.js';

const AGENTS_PER_KILL = 40; // about 190 signed writes around each kill
const SERVICE_TIMEOUT_MS = 5_000;

/**
 * `kill -9` of each domain service in turn, each in the middle of its own burst of signed writes,
 * and started again at once: no chance to finish a handler, close a transaction or publish. What
 * committed is whole (a purchase is one transaction with its domain events), what did not left
 * nothing behind, and the outboxes and the consumers' dedupe make each effect happen once. The
 * derived views catch up within 10 s of each restart.
 */
describe('faults: kill -9 of each service mid-burst', () => {
  let topology: Topology | undefined;

  afterEach(async () => {
    await topology?.stop();
    topology = undefined;
  });

  it('events, engagement, ticketing and directory in turn: no half purchase, no lost or doubled effect', async () => {
    topology = await Topology.start({
      env: { LEDGER_FAUCET: 'true', SERVICE_TIMEOUT_MS: String(SERVICE_TIMEOUT_MS) },
    });
    const host = topology.client();
    const stage = await aStage(topology, host);
    const writes: Write[] = [];
    for (const service of APPS.services) {
      const agents = await fundedAgents(topology, AGENTS_PER_KILL);
      const killed = topology.service(service).pid;
      let restarted: Promise<number> | undefined;
      const round = await burst(agents, stage, 30, () => {
        restarted = topology!.restartService(service, {}, { kill: true }).then(() => Date.now());
      });
      const restartedAt = await restarted!;
      expect(topology.service(service).pid).not.toBe(killed);
      // What the killed process had claimed (an outbox batch, events pulled from its durable
      // consumers) is taken over at once or within the 3 s ack wait, not after a 30 s lease.
      const converged = await convergenceMs(topology, stage, restartedAt);
      report(`kill -9 ${service}: ${summary(round)}; views converged ${converged} ms after the restart`);
      expect(converged).toBeLessThan(10_000);
      // A killed service's requests are refused (503 at once, nobody listens) or time out (504)
      // when they were in its hands; the gateway never answers 500, never hangs.
      expectOnlyRetryableFailures(round, { maxMs: 2 * SERVICE_TIMEOUT_MS + 2_000 });
      writes.push(...round);
    }
    const retried = await retryFailed(writes, stage);
    await expectWhole(topology, stage, [...writes, ...retried]);
  });
});
