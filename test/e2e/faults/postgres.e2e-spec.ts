import { PrivatePostgresServer, Topology, waitFor } from '@townhall/testing';
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

const AGENTS = 75; // about 360 signed writes
const SERVICE_TIMEOUT_MS = 5_000;

/**
 * PostgreSQL goes away under a burst of signed writes: a fast restart of the whole server, then
 * (separately) every backend terminated. Clients are told to retry (503/504 with Retry-After,
 * never 500), the pools recover without restarting an app, and nothing acknowledged is lost.
 */
describe('faults: PostgreSQL restarted or its backends terminated mid-burst', () => {
  let postgres: PrivatePostgresServer | undefined;
  let topology: Topology | undefined;

  afterAll(async () => {
    await topology?.stop();
    await postgres?.destroy();
  });

  /** One topology on one private cluster for both faults: the second also proves the first left it whole. */
  async function start(): Promise<Topology> {
    postgres ??= await PrivatePostgresServer.start();
    topology ??= await Topology.start({
      postgresAdminUrl: postgres.adminUrl,
      env: { LEDGER_FAUCET: 'true', SERVICE_TIMEOUT_MS: String(SERVICE_TIMEOUT_MS) },
    });
    return topology;
  }

  /** Each service's /readyz, by its probe port: true when it answers 200. */
  async function readiness(topology: Topology): Promise<boolean[]> {
    return Promise.all(
      topology.services.map(async (service) => {
        const response = await fetch(`http://127.0.0.1:${service.env['PROBE_PORT']}/readyz`).catch(
          () => undefined,
        );
        return response?.status === 200;
      }),
    );
  }

  it('pg_ctl stop -m fast, then start once every readiness is false: 503 with Retry-After meanwhile, readiness false then true, whole afterwards', async () => {
    const topology = await start();
    const host = topology.client();
    const stage = await aStage(topology, host);
    const agents = await fundedAgents(topology, AGENTS);
    const pids = topology.services.map((service) => service.pid);

    // The restart of `pg_ctl restart -m fast` (every session ended, the server stopped, started
    // again), with the start held until every service's readiness has said false: the window
    // in which the services must answer 503 at once, and the readiness that must see it.
    let restarted: Promise<number> | undefined;
    let notReady: boolean[] = [];
    const writes = await burst(agents, stage, 60, () => {
      restarted = (async () => {
        await postgres!.stop('fast');
        notReady = await waitFor('every service not ready', async () => {
          const states = await readiness(topology);
          return states.every((ready) => !ready) ? states : undefined;
        });
        await new Promise((resolve) => setTimeout(resolve, 500)); // writes keep coming meanwhile
        await postgres!.startAgain();
        // Measured at once, while writes that were waiting may still be answered.
        return recoveryMs(host, stage, Date.now());
      })();
    });
    const recovery = await restarted!;
    report(`postgres restart: recovered ${recovery} ms after the restart returned; ${summary(writes)}`);

    expectOnlyRetryableFailures(writes, { maxMs: 2 * SERVICE_TIMEOUT_MS + 2_000 });
    expect(writes.some((write) => !write.ok && write.code === 'dependency.unavailable')).toBe(true);
    expect(notReady).toEqual(topology.services.map(() => false));
    await waitFor('every service ready again', async () =>
      (await readiness(topology)).every(Boolean) ? true : undefined,
    );
    expect(recovery).toBeLessThan(1_500);
    // No app was restarted: the same processes serve.
    expect(topology.services.map((service) => service.pid)).toEqual(pids);
    expect(topology.services.every((service) => service.running)).toBe(true);

    const retried = await retryFailed(writes, stage);
    await expectWhole(topology, stage, [...writes, ...retried]);
  });

  it('pg_ctl restart -m fast as it is typed (a restart of well under a second): the same, and served again at once', async () => {
    const topology = await start();
    const host = topology.client();
    const stage = await aStage(topology, host);
    const agents = await fundedAgents(topology, AGENTS);

    let restarted: Promise<number> | undefined;
    const writes = await burst(agents, stage, 60, () => {
      restarted = (async () => {
        await postgres!.restart();
        return recoveryMs(host, stage, Date.now());
      })();
    });
    const recovery = await restarted!;
    report(`pg_ctl restart -m fast: recovered ${recovery} ms after it returned; ${summary(writes)}`);

    expectOnlyRetryableFailures(writes, { maxMs: 2 * SERVICE_TIMEOUT_MS + 2_000 });
    expect(recovery).toBeLessThan(1_500);
    expect(topology.services.every((service) => service.running)).toBe(true);
    const retried = await retryFailed(writes, stage);
    await expectWhole(topology, stage, [...writes, ...retried]);
  });

  it('every backend terminated (pg_terminate_backend): the pools reconnect, nothing is lost', async () => {
    const topology = await start();
    const host = topology.client();
    const stage = await aStage(topology, host);
    const agents = await fundedAgents(topology, AGENTS);

    let terminated: Promise<number> | undefined;
    const writes = await burst(agents, stage, 60, () => {
      terminated = (async () => {
        let ended = 0;
        // Twice, 100 ms apart: the connections the pools opened again in between go too.
        for (let round = 0; round < 2; round++) {
          ended += await postgres!.terminateBackends(topology.database.name);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return ended;
      })();
    });
    const ended = await terminated!;
    report(`pg_terminate_backend: ${ended} backends ended; ${summary(writes)}`);
    expect(ended).toBeGreaterThan(0);

    expectOnlyRetryableFailures(writes, { maxMs: 2 * SERVICE_TIMEOUT_MS + 2_000 });
    expect(topology.services.every((service) => service.running)).toBe(true);
    const retried = await retryFailed(writes, stage);
    await expectWhole(topology, stage, [...writes, ...retried]);
  });
});
