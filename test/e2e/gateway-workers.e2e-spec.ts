import type { EventView } from '@townhall/contracts';
import { AgentClient } from '@townhall/sdk';
import { childrenOf, isAlive, LiveReader, Topology, waitFor, type AppProcess } from '@townhall/testing';

const HOUR = 3_600_000;
const READERS = 8;

describe('GATEWAY_WORKERS: one gateway as several worker processes on one port', () => {
  let topology: Topology;
  let gateway: { url: string; probeUrl: string; process: AppProcess };

  beforeAll(async () => {
    topology = await Topology.start();
    gateway = await topology.startGateway({ GATEWAY_WORKERS: '2' });
  });
  afterAll(async () => {
    await topology?.stop();
  });

  it('runs two workers behind a primary that reports them ready, with their metrics in one', async () => {
    const primary = gateway.process.pid!;
    await waitFor('two workers', async () => (childrenOf(primary).length === 2 ? true : undefined));
    // Ready once both have said they listen (the public /readyz answers from the first one on).
    const ready = await waitFor('the primary ready', async () => {
      const response = await fetch(`${gateway.probeUrl}/readyz`);
      return response.ok ? response.json() : undefined;
    });
    expect(ready).toEqual({ ready: true, checks: { workers: 'ok' } });
    // Requests on new connections are spread over both; every one of them is answered.
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${gateway.url}/events?limit=1`, { headers: { connection: 'close' } }).then((r) => r.status),
      ),
    );
    expect(answers).toEqual(Array.from({ length: 20 }, () => 200));
    const metrics = await (await fetch(`${gateway.probeUrl}/metrics`)).text();
    // One registry for all workers: the requests of both, counted together.
    const served = metrics
      .split('\n')
      .filter(
        (line) =>
          line.startsWith('townhall_http_request_duration_seconds_count{') &&
          line.includes('route="/events"'),
      )
      .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    expect(served).toBeGreaterThanOrEqual(20);
  });

  it('keeps live streams exact across a worker killed mid-stream: the readers resume on another', async () => {
    const host = new AgentClient({ baseUrl: topology.baseUrl });
    const startsAt = new Date(Date.now() + HOUR);
    const event = await host.events.create({
      title: 'Workers',
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
      timezone: 'UTC',
      capacity: 100,
    });
    // The event's creation has gone through the live path before the readers open (on a slow
    // machine it still reached some of them): a probe sees an update made after it.
    const probe = await LiveReader.open(new AgentClient({ baseUrl: gateway.url }), event.id);
    await host.events.update(event.id, { title: 'Ready' });
    await waitFor('the probe to see the update', async () =>
      probe.received.some((m) => (m.event.data as EventView).title === 'Ready') ? true : undefined,
    );
    await probe.close();
    // Each stream is a connection of its own: the primary hands them to the workers in turn.
    const readers = await Promise.all(
      Array.from({ length: READERS }, () =>
        LiveReader.open(new AgentClient({ baseUrl: gateway.url }), event.id),
      ),
    );
    try {
      for (let i = 1; i <= 3; i += 1) await host.events.update(event.id, { title: `Before ${i}` });
      await Promise.all(readers.map((reader) => reader.waitFor(3)));

      const primary = gateway.process.pid!;
      const [victim, survivor] = childrenOf(primary);
      process.kill(victim!, 'SIGKILL');
      for (let i = 1; i <= 3; i += 1) await host.events.update(event.id, { title: `After ${i}` });

      const all = await Promise.all(readers.map((reader) => reader.waitFor(6, 20_000)));
      const titles = all.map((messages) => messages.map((m) => (m.event.data as EventView).title));
      for (const seen of titles)
        expect(seen).toEqual(['Before 1', 'Before 2', 'Before 3', 'After 1', 'After 2', 'After 3']);
      const ids = all.map((messages) => messages.map((m) => m.id));
      for (const seen of ids) expect(seen).toEqual(ids[0]);
      // The readers on the killed worker reconnected (with their last id); the others did not have to.
      const reconnected = readers.filter((reader) => reader.opens > 1).length;
      expect(reconnected).toBeGreaterThan(0);
      expect(reconnected).toBeLessThan(READERS);

      // The primary forks a worker in its place and is ready again.
      await waitFor('a new worker in place of the killed one', async () => {
        const now = childrenOf(primary);
        return now.length === 2 && now.includes(survivor!) && !now.includes(victim!) ? true : undefined;
      });
      await waitFor('the primary ready again', async () =>
        (await fetch(`${gateway.probeUrl}/readyz`)).ok ? true : undefined,
      );
    } finally {
      await Promise.all(readers.map((reader) => reader.close()));
    }
  }, 90_000);

  it('stops every worker on SIGTERM, and exits 0', async () => {
    const primary = gateway.process.pid!;
    const workers = childrenOf(primary);
    expect(workers).toHaveLength(2);
    expect(await gateway.process.stop()).toBe(0);
    for (const worker of workers) expect(isAlive(worker)).toBe(false);
  });
});
