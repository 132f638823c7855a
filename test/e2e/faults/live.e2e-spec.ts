import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentClient, generateAgentKey, type LiveEvent } from '@townhall/sdk';
import { FailoverProxy, LiveReader, StandaloneProcess, Topology, freePort, waitFor } from '@townhall/testing';
import { aPaidEvent, report } from './workload.js';

const CLIENTS = 200;

/** The questions the messages announce (townhall.question.submitted carries the question). */
function questionIds(messages: LiveEvent[]): string[] {
  return messages.map((message) => (message.event.data as { id: string }).id);
}

describe('faults: live streams across a dead gateway replica and a standalone restart', () => {
  let topology: Topology | undefined;
  let proxy: FailoverProxy | undefined;
  let readers: LiveReader[] = [];

  afterEach(async () => {
    await Promise.all(readers.map((reader) => reader.close()));
    readers = [];
    await proxy?.stop();
    await topology?.stop();
    topology = proxy = undefined;
  });

  it('200 clients of a replica killed with -9 reconnect to another with Last-Event-ID and miss nothing', async () => {
    const limits = { LIVE_STREAMS_PER_CLIENT: String(CLIENTS * 2), QUESTIONS_PER_MINUTE: '100' };
    topology = await Topology.start({ env: limits });
    const second = await topology.startGateway(limits);
    // The clients reach the gateways as through a Kubernetes Service: the first replica while it
    // lives, then the other.
    const portOf = (url: string) => Number(new URL(url).port);
    proxy = await FailoverProxy.start([portOf(topology.baseUrl), portOf(second.url)]);
    // The host writes through the replica that stays.
    const host = new AgentClient({
      baseUrl: second.url,
      audience: topology.baseUrl,
      key: generateAgentKey(),
    });
    const event = await host.events.create(aPaidEvent());
    const viewer = new AgentClient({ baseUrl: proxy.url, audience: topology.baseUrl });
    for (let index = 0; index < CLIENTS; index += 50) {
      readers.push(
        ...(await Promise.all(Array.from({ length: 50 }, () => LiveReader.open(viewer, event.id)))),
      );
    }

    const asked: string[] = [];
    const ask = async (count: number) => {
      for (let index = 0; index < count; index++) {
        asked.push((await host.questions.submit(event.id, `Question ${asked.length + 1}`)).id);
      }
    };
    const everyoneHas = (count: number, timeoutMs = 20_000) =>
      waitFor(
        `every reader to have ${count} messages`,
        async () => (readers.every((reader) => reader.received.length >= count) ? true : undefined),
        timeoutMs,
      );

    await ask(10);
    await everyoneHas(10);
    await topology.gateway.kill(); // kill -9: no goodbye to any client
    const killedAt = Date.now();
    await ask(10); // while the clients are away
    await everyoneHas(20);
    const caughtUp = Date.now() - killedAt;
    await ask(5); // live again, on the other replica
    await everyoneHas(25);
    report(`live: ${CLIENTS} clients of a killed replica caught up ${caughtUp} ms after the kill`);

    for (const reader of readers) {
      expect(reader.error).toBeUndefined();
      expect(reader.cuts).toEqual([]);
      expect(reader.opens).toBe(2);
      expect(questionIds(reader.received)).toEqual(asked);
      const ids = reader.received.map((message) => Number(message.id));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(ids.length);
    }
    // Every reader saw the same stream ids: replicas number messages alike.
    const first = readers[0]!.received.map((message) => message.id);
    for (const reader of readers) expect(reader.received.map((message) => message.id)).toEqual(first);
  });

  it('standalone: after a restart, a resuming client is told its history is gone (history.cut), then gets what is new', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'townhall-live-restart-'));
    const port = await freePort();
    const env = { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, RATE_LIMIT_WRITES_PER_SECOND: '0' };
    let standalone = await StandaloneProcess.start(env, port, { dataDir });
    try {
      const host = new AgentClient({ baseUrl: standalone.baseUrl, key: generateAgentKey() });
      const event = await host.events.create(aPaidEvent());
      const reader = await LiveReader.open(new AgentClient({ baseUrl: standalone.baseUrl }), event.id);
      readers.push(reader);
      const before = await host.questions.submit(event.id, 'Before the restart');
      await waitFor('the first question', async () => (reader.received.length === 1 ? true : undefined));

      await standalone.stop();
      standalone = await StandaloneProcess.start(env, port, { dataDir });
      await waitFor('the reader back', async () => (reader.opens === 2 ? true : undefined), 20_000);
      const after = await host.questions.submit(event.id, 'After the restart');
      await waitFor('the second question', async () => (reader.received.length === 2 ? true : undefined));

      expect(questionIds(reader.received)).toEqual([before.id, after.id]);
      expect(reader.cuts).toEqual([
        {
          lastEventId: reader.received[0]!.id,
          resumedAfter: expect.stringMatching(/^\d+$/) as unknown as string,
          skipped: null,
          reason: 'history_gone',
        },
      ]);
      expect(Number(reader.cuts[0]!.resumedAfter)).toBeGreaterThan(Number(reader.received[0]!.id));
      expect(Number(reader.received[1]!.id)).toBeGreaterThan(Number(reader.cuts[0]!.resumedAfter));
    } finally {
      await Promise.all(readers.map((reader) => reader.close()));
      readers = [];
      await standalone.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
