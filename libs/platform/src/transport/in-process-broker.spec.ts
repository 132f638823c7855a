import 'reflect-metadata';
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { contract, DomainError } from '@townhall/contracts';
import { pino } from 'pino';
import { z } from 'zod';
import { Handle } from '../handle.js';
import { RemoteErrorFilter } from '../remote-error.filter.js';
import { InProcessBroker } from './in-process-broker.js';

const Echo = contract<{ text: string; at: string }>()('test.echo', z.object({ text: z.string().min(1) }));
const Refuse = contract<never>()('test.refuse', z.object({}));
const Crash = contract<never>()('test.crash', z.object({}));
const Slow = contract<{ done: boolean }>()('test.slow', z.object({ ms: z.number() }));
const Nobody = contract<never>()('test.nobody', z.object({}));

let slowFinished = false;

@Controller()
class TestHandlers {
  @Handle(Echo)
  async echo(data: { text: string }) {
    return { text: data.text, at: new Date(0) as unknown as string };
  }

  @Handle(Refuse)
  async refuse(): Promise<never> {
    throw new DomainError('event.not_found', 'No such event');
  }

  @Handle(Crash)
  async crash(): Promise<never> {
    throw new Error('a bug');
  }

  @Handle(Slow)
  async slow(data: { ms: number }) {
    await new Promise((resolve) => setTimeout(resolve, data.ms));
    slowFinished = true;
    return { done: true };
  }
}

@Module({ controllers: [TestHandlers] })
class TestModule {}

describe('InProcessBroker', () => {
  const broker = new InProcessBroker();
  const meta = { requestId: 'r-1', caller: null };
  let app: INestMicroservice;

  beforeAll(async () => {
    const logger = pino({ level: 'silent' });
    app = await NestFactory.createMicroservice(TestModule, {
      strategy: broker.strategy('test'),
      logger: false,
    });
    app.useGlobalFilters(new RemoteErrorFilter(logger));
    await app.listen();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers through the handler, with what JSON would carry', async () => {
    await expect(broker.client(1_000).send(Echo, { text: 'hi' }, meta)).resolves.toEqual({
      text: 'hi',
      at: '1970-01-01T00:00:00.000Z',
    });
  });

  it('turns validation, domain errors and bugs into the DomainErrors NATS would carry', async () => {
    const client = broker.client(1_000);
    await expect(client.send(Echo, { text: '' }, meta)).rejects.toMatchObject({ code: 'validation.failed' });
    await expect(client.send(Refuse, {}, meta)).rejects.toMatchObject({
      code: 'event.not_found',
      message: 'No such event',
    });
    await expect(client.send(Crash, {}, meta)).rejects.toMatchObject({ code: 'internal.error' });
  });

  it('answers service.unavailable when nobody handles the pattern, service.timeout when late', async () => {
    await expect(broker.client(1_000).send(Nobody, {}, meta)).rejects.toMatchObject({
      code: 'service.unavailable',
    });
    await expect(broker.client(20).send(Slow, { ms: 200 }, meta)).rejects.toMatchObject({
      code: 'service.timeout',
    });
  });

  it('lets in-flight requests finish when the service closes, then refuses new ones', async () => {
    const other = new InProcessBroker();
    const service = await NestFactory.createMicroservice(TestModule, {
      strategy: other.strategy('test'),
      logger: false,
    });
    await service.listen();
    slowFinished = false;
    const inFlight = other.client(2_000).send(Slow, { ms: 100 }, meta);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await service.close();
    expect(slowFinished).toBe(true);
    await expect(inFlight).resolves.toEqual({ done: true });
    await expect(other.client(1_000).send(Echo, { text: 'x' }, meta)).rejects.toMatchObject({
      code: 'service.unavailable',
    });
  });

  it('refuses two services handling one pattern', () => {
    const server = broker.strategy('impostor');
    (server as unknown as { messageHandlers: Map<string, unknown> }).messageHandlers.set(
      'test.echo',
      () => 1,
    );
    expect(() => server.listen(() => undefined)).toThrow(/handled by test already/);
  });
});
