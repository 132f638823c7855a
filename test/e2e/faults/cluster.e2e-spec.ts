import { jetstreamManager } from '@nats-io/jetstream';
import { TOWNHALL_STREAM } from '@townhall/contracts';
import { AgentClient } from '@townhall/sdk';
import { connectAs, NatsCluster, Topology, waitFor, type TestNats } from '@townhall/testing';
import {
  aStage,
  burst,
  convergenceMs,
  expectOnlyRetryableFailures,
  expectWhole,
  fundedAgents,
  recoveryMs,
  report,
  retryFailed,
  summary,
  type Stage,
  type Write,
} from './workload.js';

const AGENTS = 60; // about 290 signed writes per burst, half through each gateway
const SERVICE_TIMEOUT_MS = 3_000; // a request caught by the loss is answered 504 within 3 s
const NODE_DOWN_MS = 3_000;

/**
 * The production shape on one machine: a JetStream cluster of three nats-server nodes with routes
 * between them, the TOWNHALL stream and every durable consumer on three replicas
 * (NATS_STREAM_REPLICAS=3), and two replica sets of every app (two processes of each service,
 * two gateways) given the whole server list. The node that leads the stream is killed mid-burst
 * and comes back; then one whole replica set is killed mid-burst and stays dead.
 */
describe('faults: a NATS cluster and two replica sets', () => {
  let cluster: NatsCluster | undefined;
  let topology: Topology | undefined;

  afterAll(async () => {
    await topology?.stop();
    await cluster?.destroy();
  });

  it('keeps every acknowledged write through the loss of the stream leader and of a whole replica set', async () => {
    cluster = await NatsCluster.start(3);
    topology = await Topology.start({
      nats: cluster,
      env: {
        LEDGER_FAUCET: 'true',
        SERVICE_TIMEOUT_MS: String(SERVICE_TIMEOUT_MS),
        NATS_STREAM_REPLICAS: '3',
      },
    });
    const second = await topology.startReplicaSet();
    const host = topology.client();
    const stage = await aStage(topology, host);

    // Placed on three nodes: the stream and each durable consumer the services created.
    const placed = await waitFor('the stream and its consumers on 3 nodes', async () => {
      const placement = await cluster!.placement(TOWNHALL_STREAM);
      const whole =
        placement?.leader !== undefined &&
        placement.replicas.length === 2 &&
        placement.consumers.length >= 7 &&
        placement.consumers.every((consumer) => consumer.replicas === 3);
      return whole ? placement : undefined;
    });
    expect(await streamReplicas(cluster)).toBe(3);
    // Every app was given the whole list: both gateways serve.
    const viaSecond = (agent: AgentClient) =>
      new AgentClient({ baseUrl: second.url, audience: topology!.baseUrl, key: agent.key });

    // 1. The stream's leader is killed with SIGKILL mid-burst, and started again 3 s later.
    const leader = placed.leader!;
    const firstAgents = split(await fundedAgents(topology, AGENTS), viaSecond);
    let nodeFault: Promise<{ killedAt: number; restartedAt: number }> | undefined;
    const duringNodeLoss = await burst(firstAgents.all, stage, 40, () => {
      nodeFault = (async () => {
        await cluster!.kill(leader);
        const killedAt = Date.now();
        await new Promise((resolve) => setTimeout(resolve, NODE_DOWN_MS));
        await cluster!.restart(leader);
        return { killedAt, restartedAt: Date.now() };
      })();
    });
    const { killedAt, restartedAt } = await nodeFault!;
    const recovered = await recoveryMs(host, stage, restartedAt);
    const nodeConverged = await convergenceMs(topology, stage, killedAt);
    const newLeader = (await cluster.placement(TOWNHALL_STREAM))?.leader;
    report(
      `stream leader ${leader} killed (now ${newLeader}): ${summary(duringNodeLoss)}; ` +
        `writes again ${recovered} ms after its restart, views converged ${nodeConverged} ms after its loss`,
    );
    expectOnlyRetryableFailures(duringNodeLoss, { maxMs: 2 * SERVICE_TIMEOUT_MS + 2_000 });
    expect(recovered).toBeLessThan(15_000);
    expect(nodeConverged).toBeLessThan(15_000);
    const retriedAfterNode = await retryFailed(duringNodeLoss, stage);
    await expectWhole(topology, stage, [...duringNodeLoss, ...retriedAfterNode]);
    await expectQuestionsOnce([topology.client(), viaSecond(host)], stage, [
      ...duringNodeLoss,
      ...retriedAfterNode,
    ]);

    // 2. The second replica set (every service and its gateway) is killed mid-burst, for good.
    const secondAgents = split(await fundedAgents(topology, AGENTS), viaSecond);
    let setLost: Promise<number> | undefined;
    const duringSetLoss = await burst(secondAgents.all, stage, 40, () => {
      setLost = (async () => {
        await Promise.all(second.processes.map((app) => app.kill()));
        return Date.now();
      })();
    });
    const lostAt = await setLost!;
    const setConverged = await convergenceMs(topology, stage, lostAt);
    report(`second replica set killed: ${summary(duringSetLoss)}; views converged ${setConverged} ms after`);
    // Through the dead gateway a client sees its connection refused or cut; never a 500.
    expectOnlyRetryableFailures(duringSetLoss, { maxMs: 2 * SERVICE_TIMEOUT_MS + 2_000, network: true });
    expect(setConverged).toBeLessThan(15_000);
    // The first set serves on: what failed is sent again through its gateway, and succeeds.
    const throughFirst = duringSetLoss.map((write) => ({
      ...write,
      agent: secondAgents.firstTwin.get(write.agent) ?? write.agent,
    }));
    const retriedAfterSet = await retryFailed(throughFirst, stage);
    const everything = [...duringNodeLoss, ...retriedAfterNode, ...throughFirst, ...retriedAfterSet];
    await expectWhole(topology, stage, everything);
    await expectQuestionsOnce([topology.client()], stage, everything);
  });
});

/** Half the agents through the second gateway; each one's twin through the first, for retries. */
function split(
  agents: AgentClient[],
  viaSecond: (agent: AgentClient) => AgentClient,
): { all: AgentClient[]; firstTwin: Map<AgentClient, AgentClient> } {
  const firstTwin = new Map<AgentClient, AgentClient>();
  const all = agents.map((agent, index) => {
    if (index % 2 === 0) return agent;
    const twin = viaSecond(agent);
    firstTwin.set(twin, agent);
    return twin;
  });
  return { all, firstTwin };
}

/** Every acknowledged question is listed exactly once by each reader's gateway. */
async function expectQuestionsOnce(readers: AgentClient[], stage: Stage, writes: Write[]): Promise<void> {
  const acknowledged = writes
    .filter((write) => write.kind === 'question' && write.ok)
    .map((write) => write.id!);
  for (const reader of readers) {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await reader.questions.list(stage.eventId, {
        sort: 'new',
        limit: 100,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...page.items.map((question) => question.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    const counts = new Map<string, number>();
    for (const id of seen) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect(acknowledged.filter((id) => counts.get(id) !== 1)).toEqual([]);
  }
}

/** The TOWNHALL stream's configured replicas, as JetStream reports them to a client. */
async function streamReplicas(nats: TestNats): Promise<number> {
  const nc = await connectAs(nats, 'auth-gateway');
  try {
    return (await (await jetstreamManager(nc)).streams.info(TOWNHALL_STREAM)).config.num_replicas;
  } finally {
    await nc.close();
  }
}
