import { Topology } from '@townhall/testing';
import {
  aStage,
  burst,
  expectOnlyRetryableFailures,
  expectWhole,
  fundedAgents,
  recoveryMs,
  retryFailed,
  report,
  summary,
} from './workload.js';

const AGENTS = 100; // about 480 signed writes
const SERVICE_TIMEOUT_MS = 5_000;
const OUTAGE_MS = 3_000;

/**
 * NATS goes away for 3 s under a burst of signed writes and comes back with its store (the
 * TOWNHALL stream and the durable consumers). Every app reconnects by itself; requests made
 * while it is away are refused at once (503, Retry-After) instead of waiting for the timeout;
 * what committed meanwhile waits in the outboxes and reaches JetStream once it is back.
 */
describe('faults: NATS restarted mid-burst', () => {
  let topology: Topology | undefined;

  afterEach(async () => {
    await topology?.stop();
    topology = undefined;
  });

  it('refuses at once while NATS is away, loses nothing, and serves again within 1.5 s of its return', async () => {
    topology = await Topology.start({
      env: { LEDGER_FAUCET: 'true', SERVICE_TIMEOUT_MS: String(SERVICE_TIMEOUT_MS) },
    });
    const nats = topology.natsServer!;
    const host = topology.client();
    const stage = await aStage(topology, host);
    const agents = await fundedAgents(topology, AGENTS);
    const pids = [topology.gateway, ...topology.services].map((app) => app.pid);

    let outage: Promise<{ down: number; up: number; recovery: number }> | undefined;
    const writes = await burst(agents, stage, 60, () => {
      outage = (async () => {
        await nats.stop();
        const down = Date.now();
        await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
        await nats.restart();
        const up = Date.now();
        // Measured at once, while the writes in flight at the cut may still be waiting.
        return { down, up, recovery: await recoveryMs(host, stage, up) };
      })();
    });
    const { down, up, recovery } = await outage!;
    report(`nats restart: recovered ${recovery} ms after it was back; ${summary(writes)}`);

    // Nothing hangs past the timeout; every failure says retry (503/504 with Retry-After).
    expectOnlyRetryableFailures(writes, { maxMs: 2 * SERVICE_TIMEOUT_MS + 2_000 });
    // A write that began once NATS had been gone for a moment was refused at once, not after 5 s.
    const begunWhileAway = writes.filter((write) => write.at - write.ms > down + 200 && write.at < up);
    expect(begunWhileAway.length).toBeGreaterThan(0);
    for (const write of begunWhileAway) {
      expect({ ok: write.ok, code: write.code }).toEqual({ ok: false, code: 'service.unavailable' });
      expect(write.ms).toBeLessThan(1_000);
    }
    expect(recovery).toBeLessThan(1_500);
    // Every app reconnected by itself: the same processes serve.
    expect([topology.gateway, ...topology.services].map((app) => app.pid)).toEqual(pids);
    expect([topology.gateway, ...topology.services].every((app) => app.running)).toBe(true);

    const retried = await retryFailed(writes, stage);
    await expectWhole(topology, stage, [...writes, ...retried]);
  });
});
