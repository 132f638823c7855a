import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Injectable, Module, type Provider } from '@nestjs/common';
import type { CloudEvent, DomainEvent, DomainEventOf } from '@townhall/contracts';
import { aCloudEvent, anIssuedTicketView } from '@townhall/testing';
import { pino } from 'pino';
import type { DataSource } from 'typeorm';
import { startService, type ServiceRunOptions, type StartedService } from '../service-host.js';
import { InProcessBroker } from '../transport/in-process-broker.js';
import { InProcessEventLog } from '../transport/in-process-event-log.js';
import { inProcessTransport } from '../transport/in-process-transport.js';
import { HandlerDeclarationError } from './handler-declarations.js';
import { OnDomainEvent } from './on-domain-event.js';
import { Periodic } from './periodic.js';

// Each test declares its handler classes inside itself: a decorator records its class when it
// runs, and a class loaded but never provided would fail every later start of this file.

const logger = pino({ level: 'silent' });
// These services keep no data: nothing queries their database, and stopping it is a no-op.
const noDatabase = { driver: {}, destroy: async () => undefined } as unknown as DataSource;

@Module({})
class TestModule {}

/** Every durable a test of this file declares (their names are judged before their grant). */
const TEST_DURABLES = ['test-tickets', 'test-follows', 'test-questions', 'test-standings', 'test-forgotten'];

/** The service `test` with `providers`, as startService runs any domain service. */
function start(
  providers: Provider[],
  config: Record<string, unknown> = {},
  log = new InProcessEventLog(),
  options: Partial<ServiceRunOptions> = {},
): Promise<StartedService> {
  return startService(
    {
      name: 'test',
      dataSource: noDatabase,
      serviceTimeoutMs: 1_000,
      config,
      // No app of the bus: it may bind the durables these tests declare, and call nobody.
      access: { calls: [], durables: TEST_DURABLES, readsStream: false },
      module: () => ({ module: TestModule, providers }),
    },
    inProcessTransport(new InProcessBroker(), log),
    { logger, ...options },
  );
}

const AGENT = 'HostAgent5Yq2x8dWnH3vJk7mPa9bCd4eFg6hKjLmNp';

/** A domain event of `type` whose data its schema takes, for the types these tests publish. */
function anEvent(
  type: 'townhall.ticket.issued' | 'townhall.series.followed' | 'townhall.stage.posted',
): CloudEvent {
  if (type === 'townhall.ticket.issued') return aCloudEvent(type, anIssuedTicketView(randomUUID(), AGENT));
  return aCloudEvent(type, { seriesId: 'series-1', agentId: AGENT });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 5_000; !condition(); await sleep(5))
    if (Date.now() > deadline) throw new Error('timed out');
}

describe('handlers found by the platform', () => {
  it('runs a @Periodic method every its setting from the start, and the stop waits for its run', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const runs = { started: 0, finished: 0 };
    @Injectable()
    class Sweep {
      @Periodic({ every: 'SWEEP_INTERVAL_MS' })
      async sweep(): Promise<number> {
        runs.started += 1;
        await held;
        runs.finished += 1;
        return 1;
      }
    }
    const service = await start([Sweep], { SWEEP_INTERVAL_MS: 10 });
    await until(() => runs.started === 1);
    let stopped = false;
    const stopping = service.stop().then(() => (stopped = true));
    await sleep(40);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(runs).toEqual({ started: 1, finished: 1 });
    await sleep(40);
    expect(runs.started).toBe(1);
  });

  it('runs a job at start when asked, and only where its `when` holds', async () => {
    const ran: string[] = [];
    @Injectable()
    class Jobs {
      @Periodic({ every: 'HOURLY_MS', runAtStart: true })
      async always(): Promise<number> {
        ran.push('always');
        return 0;
      }

      @Periodic({ every: 'HOURLY_MS', runAtStart: true, when: (config) => config['PAID'] === true })
      async onlyPaid(): Promise<number> {
        ran.push('onlyPaid');
        return 0;
      }
    }
    const service = await start([Jobs], { HOURLY_MS: 3_600_000, PAID: false });
    await until(() => ran.length > 0);
    await service.stop();
    expect(ran).toEqual(['always']);
  });

  it('consumes the domain events of each @OnDomainEvent topic, one at a time or in batches', async () => {
    const seen: unknown[] = [];
    @Injectable()
    class Projection {
      @OnDomainEvent('townhall.ticket.>', { durable: 'test-tickets' })
      async ticket(event: DomainEventOf<'townhall.ticket.>'>): Promise<void> {
        seen.push(event.type);
      }

      @OnDomainEvent('townhall.series.followed', { durable: 'test-follows', batch: true, gatherMs: 20 })
      @OnDomainEvent('townhall.question.>', { durable: 'test-questions', batch: true })
      async count(
        events: Array<DomainEventOf<'townhall.series.followed'> | DomainEventOf<'townhall.question.>'>>,
      ): Promise<void> {
        seen.push(events.map((event) => event.type));
      }
    }
    const log = new InProcessEventLog();
    const service = await start([Projection], {}, log);
    expect(
      service.subscriptions.map(({ durable, subjects, gatherMs }) => [durable, ...subjects, gatherMs]).sort(),
    ).toEqual([
      ['test-follows', 'townhall.series.followed', 20],
      ['test-questions', 'townhall.question.>', undefined],
      ['test-tickets', 'townhall.ticket.>', undefined],
    ]);
    for (const type of [
      'townhall.ticket.issued',
      'townhall.series.followed',
      'townhall.stage.posted',
    ] as const)
      await log.publish(anEvent(type));
    const follows = service.subscriptions.find((subscription) => subscription.durable === 'test-follows')!;
    const read = [anEvent('townhall.series.followed'), anEvent('townhall.series.followed')] as DomainEvent[];
    await follows.handleBatch!(read);
    await service.stop();
    expect(seen).toEqual([
      'townhall.ticket.issued',
      ['townhall.series.followed'],
      ['townhall.series.followed', 'townhall.series.followed'],
    ]);
  });

  it("hands a consumer its topic's data as the catalog parsed it, and drops data the catalog refuses", async () => {
    const log = new InProcessEventLog();
    const refused = aCloudEvent('townhall.series.followed', { seriesId: 'series-1', agentId: 'not base58!' });
    const followers = new Set<string>();
    @Injectable()
    class Follows {
      @OnDomainEvent('townhall.series.>', { durable: 'test-follows' })
      async record(event: DomainEventOf<'townhall.series.>'>): Promise<void> {
        if (event.type === 'townhall.series.followed') followers.add(event.data.agentId);
      }
    }
    const service = await start([Follows], {}, log);
    // The publish goes through: an event handed over again would be refused again, forever.
    await log.publish(refused);
    await log.publish(anEvent('townhall.series.followed'));
    await service.stop();
    expect([...followers]).toEqual([AGENT]);
  });

  it('refuses to compile a method that does not take the events of its topic', () => {
    // Never called: these classes are for the compiler only (a class whose decorators ran would
    // be a handler class no service provides). Each @ts-expect-error fails the typecheck should
    // the declaration under it compile.
    const declarations = () => {
      class Wrong {
        // @ts-expect-error a ticket's events are no event's
        @OnDomainEvent('townhall.event.>', { durable: 'test-standings' })
        async unrelated(_event: DomainEventOf<'townhall.ticket.>'>): Promise<void> {}

        // @ts-expect-error townhall.event.> is more than the schedule of an event
        @OnDomainEvent('townhall.event.>', { durable: 'test-standings' })
        async narrower(_event: DomainEventOf<'townhall.event.scheduled'>): Promise<void> {}

        // @ts-expect-error a CloudEvent's data is unknown: a consumer takes its topic's type
        @OnDomainEvent('townhall.event.>', { durable: 'test-standings' })
        async untyped(_event: CloudEvent): Promise<void> {}

        // @ts-expect-error a batch consumer takes an array
        @OnDomainEvent('townhall.event.>', { durable: 'test-standings', batch: true })
        async oneOfABatch(_event: DomainEventOf<'townhall.event.>'>): Promise<void> {}

        // @ts-expect-error no domain event type is townhall.evnt.*
        @OnDomainEvent('townhall.evnt.>', { durable: 'test-standings' })
        async misnamed(_event: DomainEvent): Promise<void> {}

        @OnDomainEvent('townhall.event.>', { durable: 'test-standings' })
        async wider(_event: DomainEvent): Promise<void> {}
      }
      return Wrong;
    };
    expect(typeof declarations).toBe('function');
  });

  it('fails the start on a misnamed topic, naming the class, the method and the topic', async () => {
    @Injectable()
    class Standings {
      // @ts-expect-error the compiler refuses it too; at run time, the start
      @OnDomainEvent('townhall.evnt.>', { durable: 'test-standings' })
      async record(_event: DomainEvent): Promise<void> {}
    }
    const failure = start([Standings]);
    await expect(failure).rejects.toThrow(HandlerDeclarationError);
    await expect(failure).rejects.toThrow(
      'test cannot start:\n  Standings.record (@OnDomainEvent townhall.evnt.> as test-standings): ' +
        'townhall.evnt.> is no domain event that @townhall/contracts declares (domainEventCatalog)',
    );
  });

  it('names every wrong declaration at once: a setting that is none, durables misnamed or taken', async () => {
    @Injectable()
    class Mixed {
      @Periodic({ every: 'NO_SUCH_INTERVAL_MS' })
      async sweep(): Promise<number> {
        return 0;
      }

      @OnDomainEvent('townhall.ticket.>', { durable: 'tickets' })
      @OnDomainEvent('townhall.poll.>', { durable: 'test-twice' })
      @OnDomainEvent('townhall.stage.>', { durable: 'test-twice' })
      async handle(_event: DomainEvent): Promise<void> {}

      @OnDomainEvent('townhall.question.>', { durable: 'test-slow', batch: true, gatherMs: 60_000 })
      @OnDomainEvent('townhall.refund.>', { durable: 'test-odd', batch: true, gatherMs: 2.5 })
      async gather(_events: DomainEvent[]): Promise<void> {}
    }
    const message = await start([Mixed], { NO_SUCH_INTERVAL_MS: 'soon' }).catch(
      (error: Error) => error.message,
    );
    expect(String(message).split('\n  ').slice(1).sort()).toEqual([
      'Mixed.gather (@OnDomainEvent townhall.question.> as test-slow): gatherMs must be an integer from 0 to 1000',
      'Mixed.gather (@OnDomainEvent townhall.refund.> as test-odd): gatherMs must be an integer from 0 to 1000',
      'Mixed.handle (@OnDomainEvent townhall.poll.> as test-twice): the durable test-twice is taken by Mixed.handle (@OnDomainEvent townhall.stage.> as test-twice)',
      'Mixed.handle (@OnDomainEvent townhall.ticket.> as tickets): the durable tickets must be named test-<what it keeps> (letters, digits, - and _)',
      'Mixed.sweep (@Periodic every NO_SUCH_INTERVAL_MS): NO_SUCH_INTERVAL_MS is no setting of test holding milliseconds (a positive integer of its config.ts)',
    ]);
  });

  it('fails the start on a handler class that no module provides, naming it; provided, it starts', async () => {
    @Injectable()
    class Forgotten {
      @OnDomainEvent('townhall.ticket.>', { durable: 'test-forgotten' })
      async handle(_event: DomainEventOf<'townhall.ticket.>'>): Promise<void> {}
    }
    const unprovided =
      "No started service provides these handlers' classes (add each class to its module's providers):\n" +
      '  Forgotten.handle (@OnDomainEvent townhall.ticket.> as test-forgotten)';
    // Alone in the process: at its start.
    await expect(start([])).rejects.toThrow(unprovided);
    // Composed with others (standalone mode): once they have all started, before any relay does.
    const log = new InProcessEventLog();
    const first = await start([], {}, log, { relay: false });
    expect(() => first.startRelay()).toThrow(unprovided);
    const second = await start([Forgotten], {}, log, { relay: false });
    first.startRelay();
    second.startRelay();
    await second.stop();
    await first.stop();
  });
});
