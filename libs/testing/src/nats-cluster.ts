import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NATS_AUTHORIZATION_CONF, NatsUsers, type TestNats } from './nats-users.js';
import { freePort, waitFor } from './ports.js';

/** One node of a NatsCluster: its client, route and monitoring ports and its own store. */
export interface NatsNode {
  /** Its server name (`n1`, `n2`, ...): what JetStream reports as a stream's leader or replica. */
  readonly name: string;
  readonly port: number;
  readonly clusterPort: number;
  readonly monitorPort: number;
  readonly storeDir: string;
  child: ChildProcess | undefined;
}

/** A stream's placement as JetStream's monitoring endpoint reports it. */
export interface StreamPlacement {
  leader: string | undefined;
  /** The other nodes holding it, and whether each is current. */
  replicas: Array<{ name: string; current: boolean }>;
  messages: number;
  /** Its durable consumers (ephemeral ones, such as the gateways' ordered consumers, left out). */
  consumers: Array<{ name: string; leader: string | undefined; replicas: number }>;
}

/**
 * A JetStream cluster of the test's own on this machine: `size` nats-server processes, each with
 * its ports, its store folder (under the system's temp folder) and routes to all the others, as a
 * production cluster of three nodes runs. Nodes are stopped by their own pids, never by name;
 * a node killed and started again keeps its store and its name, as a restarted pod does. Every
 * node has the apps' authorization of k8s/nats-authorization.conf, with the same users.
 */
export class NatsCluster implements TestNats {
  readonly users = NatsUsers.generate();

  private constructor(readonly nodes: NatsNode[]) {}

  static async start(size = 3): Promise<NatsCluster> {
    const nodes: NatsNode[] = [];
    for (let index = 1; index <= size; index += 1) {
      nodes.push({
        name: `n${index}`,
        port: await freePort(),
        clusterPort: await freePort(),
        monitorPort: await freePort(),
        storeDir: await mkdtemp(join(tmpdir(), `nats-cluster-n${index}-`)),
        child: undefined,
      });
    }
    const cluster = new NatsCluster(nodes);
    try {
      for (const node of nodes) cluster.spawn(node);
      await cluster.waitForMeta();
    } catch (error) {
      await cluster.destroy();
      throw error;
    }
    return cluster;
  }

  /** NATS_URL for the whole cluster: every node, comma-separated. */
  get url(): string {
    return this.nodes.map((node) => `nats://127.0.0.1:${node.port}`).join(',');
  }

  node(name: string): NatsNode {
    const node = this.nodes.find((candidate) => candidate.name === name);
    if (!node) throw new Error(`no node ${name} in this cluster`);
    return node;
  }

  /** SIGKILL: the node gets no chance to flush or to tell its peers. */
  async kill(name: string): Promise<void> {
    const node = this.node(name);
    const child = node.child;
    node.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** Starts a stopped node again, with its store, its ports and its name; resolves once it serves. */
  async restart(name: string): Promise<void> {
    const node = this.node(name);
    if (node.child) throw new Error(`${name} is running`);
    this.spawn(node);
    await waitFor(`${name} to serve`, async () => ((await this.healthy(node)) ? true : undefined), 30_000);
  }

  /**
   * Where `stream` is, as the nodes that are up report it (the first that knows its leader):
   * undefined while no node knows of it.
   */
  async placement(stream: string): Promise<StreamPlacement | undefined> {
    let fallback: StreamPlacement | undefined;
    for (const node of this.nodes) {
      if (!node.child) continue;
      const detail = await this.streamDetail(node, stream).catch(() => undefined);
      if (!detail) continue;
      if (detail.leader) return detail;
      fallback ??= detail;
    }
    return fallback;
  }

  async destroy(): Promise<void> {
    await Promise.all(
      this.nodes.map(async (node) => {
        const child = node.child;
        node.child = undefined;
        if (child && child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          const forced = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(forced);
        }
        await rm(node.storeDir, { recursive: true, force: true });
      }),
    );
  }

  private spawn(node: NatsNode): void {
    const routes = this.nodes
      .filter((other) => other !== node)
      .map((other) => `nats://127.0.0.1:${other.clusterPort}`)
      .join(',');
    // prettier-ignore
    const args = [
      '-c', NATS_AUTHORIZATION_CONF,
      '-a', '127.0.0.1', '-p', String(node.port), '-n', node.name,
      '-js', '-sd', node.storeDir, '-m', String(node.monitorPort),
      '--cluster_name', 'townhall-test', '--cluster', `nats://127.0.0.1:${node.clusterPort}`,
      '--routes', routes,
    ];
    node.child = spawn('nats-server', args, {
      stdio: 'ignore',
      env: { ...process.env, ...this.users.serverEnv() },
    });
  }

  /** Every node up, and JetStream's meta group with a leader: streams can be created. */
  private async waitForMeta(): Promise<void> {
    await waitFor(
      'the JetStream cluster to elect its meta leader',
      async () => {
        for (const node of this.nodes) {
          if (node.child?.exitCode !== null) throw new Error(`${node.name} exited`);
          if (!(await this.healthy(node))) return undefined;
        }
        const jsz = await this.monitor<{ meta_cluster?: { leader?: string } }>(this.nodes[0]!, '/jsz');
        return jsz.meta_cluster?.leader ? true : undefined;
      },
      30_000,
    );
  }

  private async healthy(node: NatsNode): Promise<boolean> {
    try {
      const health = await this.monitor<{ status?: string }>(node, '/healthz');
      return health.status === 'ok';
    } catch {
      return false;
    }
  }

  private async streamDetail(node: NatsNode, stream: string): Promise<StreamPlacement | undefined> {
    interface Jsz {
      account_details?: Array<{
        stream_detail?: Array<{
          name: string;
          cluster?: { leader?: string; replicas?: Array<{ name: string; current: boolean }> };
          state?: { messages?: number };
          consumer_detail?: Array<{
            name: string;
            config?: { durable_name?: string };
            cluster?: { leader?: string; replicas?: unknown[] };
          }>;
        }>;
      }>;
    }
    const jsz = await this.monitor<Jsz>(node, '/jsz?accounts=true&streams=true&consumers=true&config=true');
    for (const account of jsz.account_details ?? []) {
      for (const detail of account.stream_detail ?? []) {
        if (detail.name !== stream) continue;
        return {
          leader: detail.cluster?.leader,
          replicas: detail.cluster?.replicas ?? [],
          messages: detail.state?.messages ?? 0,
          consumers: (detail.consumer_detail ?? [])
            .filter((consumer) => consumer.config?.durable_name !== undefined)
            .map((consumer) => ({
              name: consumer.name,
              leader: consumer.cluster?.leader,
              replicas: 1 + (consumer.cluster?.replicas?.length ?? 0),
            })),
        };
      }
    }
    return undefined;
  }

  private async monitor<T>(node: NatsNode, path: string): Promise<T> {
    const response = await fetch(`http://127.0.0.1:${node.monitorPort}${path}`, {
      signal: AbortSignal.timeout(2_000),
    });
    if (!response.ok) throw new Error(`${node.name} ${path}: ${response.status}`);
    return (await response.json()) as T;
  }
}
