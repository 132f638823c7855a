import { Topology } from '@townhall/testing';
import {
  aStage,
  attempt,
  burst,
  cardHandle,
  expectOnlyRetryableFailures,
  expectWhole,
  fundedAgents,
  recoveryMs,
  retryFailed,
  report,
  summary,
  type Write,
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

    let outage: Promise<{ whileAway: Write[]; up: number; recovery: number }> | undefined;
    const writes = await burst(agents, stage, 60, () => {
      outage = (async () => {
        await nats.stop();
        const down = Date.now();
        // Writes sent once NATS has been gone for a moment, whatever the burst is doing by then.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const whileAway = await Promise.all(
          agents.slice(0, 20).map((agent) =>
            attempt('card', agent, async () => {
              await agent.directory.putMe({ handle: cardHandle(agent), displayName: 'Away' });
              return agent.agentId;
            }),
          ),
        );
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, down + OUTAGE_MS - Date.now())));
        await nats.restart();
        const up = Date.now();
        // Measured at once, while the writes in flight at the cut may still be waiting.
        return { whileAway, up, recovery: await recoveryMs(host, stage, up) };
      })();
    });
    const { whileAway, recovery } = await outage!;
    report(`nats restart: recovered ${recovery} ms after it was back; ${summary(writes)}`);

    // Nothing hangs past the timeout; every failure says retry (503/504 with Retry-After).
    expectOnlyRetryableFailures(writes, { maxMs: 2 * SERVICE_TIMEOUT_MS + 2_000 });
    // A write sent once NATS had been gone for a moment was refused at once, not after 5 s.
    expect(whileAway).toHaveLength(20);
    for (const write of whileAway) {
      expect({ ok: write.ok, status: write.status, code: write.code, retryAfter: write.retryAfter }).toEqual({
        ok: false,
        status: 503,
        code: 'service.unavailable',
        retryAfter: '1',
      });
      expect(write.ms).toBeLessThan(1_000);
    }
    expect(recovery).toBeLessThan(1_500);
    // Every app reconnected by itself: the same processes serve.
    expect([topology.gateway, ...topology.services].map((app) => app.pid)).toEqual(pids);
    expect([topology.gateway, ...topology.services].every((app) => app.running)).toBe(true);

    const retried = await retryFailed([...writes, ...whileAway], stage);
    await expectWhole(topology, stage, [...writes, ...whileAway, ...retried]);
  });
});
