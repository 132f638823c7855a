import 'reflect-metadata';
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { contract } from '@townhall/contracts';
import { NATS_URL } from '@townhall/testing';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { Handle } from '../src/handle.js';
import { NatsServiceClient } from '../src/nats-service-client.js';
import { DrainingNatsServer } from '../src/transport/draining-nats-server.js';

// Real NATS (docs/development.md); the pattern carries this run's id, so no other test's
// service answers it.
const RUN = randomBytes(4).toString('hex');
const Slow = contract<{ done: boolean }>()(`test.drain${RUN}.slow`, z.object({ ms: z.number() }));
const meta = { requestId: 'r-1', caller: null };
const MAX_GRACE_MS = 2_000;

let finished = 0;

@Controller()
class SlowHandler {
  @Handle(Slow)
  async slow(data: { ms: number }) {
    await new Promise((resolve) => setTimeout(resolve, data.ms));
    finished += 1;
    return { done: true };
  }
}

@Module({ controllers: [SlowHandler] })
class SlowModule {}

describe('DrainingNatsServer: a stopping service waits for what it is handling, and only then', () => {
  let nc: NatsConnection;
  let app: INestMicroservice | undefined;
  let server: DrainingNatsServer;

  beforeAll(async () => {
    nc = await connect({ servers: NATS_URL });
  });
  beforeEach(async () => {
    server = new DrainingNatsServer({ servers: NATS_URL, queue: `drain${RUN}`, maxGraceMs: MAX_GRACE_MS });
    app = await NestFactory.createMicroservice(SlowModule, { strategy: server, logger: false });
    await app.listen();
  });
  afterEach(async () => {
    await app?.close();
  });
  afterAll(async () => {
    await nc?.close();
  });

  it('is listening once listen resolves: a request sent at that moment finds it, every time', async () => {
    const client = new NatsServiceClient(nc, 2_000);
    for (let i = 0; i < 20; i += 1) {
      await app!.close();
      server = new DrainingNatsServer({ servers: NATS_URL, queue: `drain${RUN}`, maxGraceMs: MAX_GRACE_MS });
      app = await NestFactory.createMicroservice(SlowModule, { strategy: server, logger: false });
      await app.listen();
      await expect(client.send(Slow, { ms: 0 }, meta)).resolves.toEqual({ done: true });
    }
  });

  it('closes at once when nothing is in flight', async () => {
    const client = new NatsServiceClient(nc, 2_000);
    await expect(client.send(Slow, { ms: 1 }, meta)).resolves.toEqual({ done: true });
    expect(server.handling).toBe(0);
    const started = Date.now();
    await app!.close();
    app = undefined;
    // At once: nowhere near the grace it would wait with a request in flight (a loaded machine
    // takes a few hundred milliseconds to close a NATS connection).
    expect(Date.now() - started).toBeLessThan(MAX_GRACE_MS / 2);
  });

  it('answers the requests in flight before it closes, and takes no new one', async () => {
    const client = new NatsServiceClient(nc, 4_000);
    finished = 0;
    const inFlight = Promise.allSettled(
      Array.from({ length: 5 }, () => client.send(Slow, { ms: 300 }, meta)),
    );
    await waitUntil(() => server.handling === 5);
    const started = Date.now();
    await app!.close();
    app = undefined;
    expect(Date.now() - started).toBeGreaterThanOrEqual(MAX_GRACE_MS - 50);
    expect(finished).toBe(5);
    expect(await inFlight).toEqual(
      Array.from({ length: 5 }, () => ({ status: 'fulfilled', value: { done: true } })),
    );
    // Nobody serves the pattern any more: refused at once, not after the timeout.
    await expect(client.send(Slow, { ms: 1 }, meta)).rejects.toMatchObject({ code: 'service.unavailable' });
  });
});

describe('DrainingNatsServer on a connection it is given (a service has one connection)', () => {
  it('serves on it, waits for what it handles when it closes, and leaves it open for its owner', async () => {
    const shared = await connect({ servers: NATS_URL });
    try {
      const borrower = new DrainingNatsServer({
        connection: shared,
        queue: `drain${RUN}`,
        maxGraceMs: MAX_GRACE_MS,
      });
      const service = await NestFactory.createMicroservice(SlowModule, { strategy: borrower, logger: false });
      await service.listen();
      // The service's own requests go out on the same connection it serves on.
      const client = new NatsServiceClient(shared, 4_000);
      finished = 0;
      const inFlight = client.send(Slow, { ms: 300 }, meta);
      await waitUntil(() => borrower.handling === 1);
      await service.close();
      expect(finished).toBe(1);
      await expect(inFlight).resolves.toEqual({ done: true });
      expect(shared.isClosed()).toBe(false);
      await expect(client.send(Slow, { ms: 1 }, meta)).rejects.toMatchObject({ code: 'service.unavailable' });
      await shared.flush();
    } finally {
      await shared.close();
    }
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
