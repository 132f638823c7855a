import type { INestApplicationContext } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { domainEventCatalog, type CloudEvent } from '@townhall/contracts';
import type { Logger } from '../logger.js';
import type { ConsumerGate } from '../outbox/consumer-gate.js';
import { subjectMatches } from '../outbox/subjects.js';
import type { Subscription } from '../outbox/subscription.js';
import { PeriodicJob } from '../periodic-job.js';
import {
  declarationsOf,
  HandlerDeclarationError,
  labelOf,
  markProvided,
  type ConsumerDeclaration,
  type PeriodicDeclaration,
} from './handler-declarations.js';

/** What a service's providers declared, ready to run. */
export interface ServiceHandlers {
  /** One durable consumer per @OnDomainEvent. */
  subscriptions: Subscription[];
  /** One job per @Periodic (those whose `when` holds). */
  jobs: ScheduledJob[];
}

export interface ScheduledJob {
  job: PeriodicJob;
  runAtStart: boolean;
}

/** The service whose handlers are discovered: its name and its validated configuration. */
export interface HandlerHost {
  name: string;
  config: Readonly<Record<string, unknown>>;
}

// What a marked method is called with: an event, a batch of them, or nothing (a job).
type Call = (argument?: unknown) => Promise<unknown>;

// A durable consumer's name on NATS: no dots, wildcards or white space.
const DURABLE_NAME = /^[A-Za-z0-9_-]+$/;
const DOMAIN_EVENT_TYPES = Object.keys(domainEventCatalog);

/**
 * The @OnDomainEvent and @Periodic methods of every provider and controller of the app (Nest's
 * DiscoveryService: the app's module imports DiscoveryModule), each checked: a topic that no
 * domain event matches, a durable not named after the service or named twice, an `every` that
 * is not a setting of milliseconds. One HandlerDeclarationError names every one of them.
 */
export function discoverHandlers(
  app: INestApplicationContext,
  service: HandlerHost,
  logger: Logger,
): ServiceHandlers {
  const handlers: ServiceHandlers = { subscriptions: [], jobs: [] };
  const problems: string[] = [];
  // Each durable and the handler that took it first.
  const durables = new Map<string, string>();
  for (const instance of providedInstances(app)) {
    markProvided(instance);
    for (const { type, declaration } of declarationsOf(instance)) {
      const label = labelOf(type.name, declaration);
      const method = (instance as Record<string, Call>)[declaration.method]!;
      const call: Call = (argument) => method.call(instance, argument);
      if (declaration.kind === 'periodic') {
        const job = jobOf(declaration, call, service, `${type.name}.${declaration.method}`, logger);
        if (typeof job === 'string') problems.push(`${label}: ${job}`);
        else if (job) handlers.jobs.push(job);
        continue;
      }
      const takenBy = durables.get(declaration.durable);
      const consumer = takenBy
        ? `the durable ${declaration.durable} is taken by ${takenBy}`
        : consumerOf(declaration, call, service.name, app);
      if (typeof consumer === 'string') problems.push(`${label}: ${consumer}`);
      else handlers.subscriptions.push(consumer);
      durables.set(declaration.durable, takenBy ?? label);
    }
  }
  if (problems.length > 0)
    throw new HandlerDeclarationError(`${service.name} cannot start:\n  ${problems.join('\n  ')}`);
  return handlers;
}

/** A batch waits at most this long for more events (well inside the ack wait). */
const MAX_GATHER_MS = 1_000;

/** The consumer, or what is wrong with it. */
function consumerOf(
  { topic, durable, batch, gatherMs, gate: gateProvider }: ConsumerDeclaration,
  call: Call,
  service: string,
  app: INestApplicationContext,
): Subscription | string {
  if (!DOMAIN_EVENT_TYPES.some((type) => subjectMatches(topic, type)))
    return `${topic} is no domain event that @townhall/contracts declares (domainEventCatalog)`;
  // Two services on one durable would share its events: each would miss what the other took.
  if (!durable.startsWith(`${service}-`) || !DURABLE_NAME.test(durable))
    return `the durable ${durable} must be named ${service}-<what it keeps> (letters, digits, - and _)`;
  const handle = async (event: CloudEvent) => void (await call(batch ? [event] : event));
  let gate: ConsumerGate | undefined;
  if (gateProvider) {
    try {
      gate = app.get(gateProvider, { strict: false });
    } catch {
      return `its gate ${gateProvider.name} is no provider of ${service}`;
    }
  }
  if (!batch) return { durable, subjects: [topic], handle, ...(gate && { gate }) };
  if (!Number.isInteger(gatherMs) || gatherMs < 0 || gatherMs > MAX_GATHER_MS)
    return `gatherMs must be an integer from 0 to ${MAX_GATHER_MS}`;
  return {
    durable,
    subjects: [topic],
    handle,
    handleBatch: async (events) => void (await call(events)),
    ...(gatherMs > 0 && { gatherMs }),
    ...(gate && { gate }),
  };
}

/** The job, none where its `when` does not hold, or what is wrong with it. */
function jobOf(
  { every, runAtStart, when }: PeriodicDeclaration,
  call: Call,
  service: HandlerHost,
  name: string,
  logger: Logger,
): ScheduledJob | undefined | string {
  const intervalMs = service.config[every];
  if (typeof intervalMs !== 'number' || !Number.isInteger(intervalMs) || intervalMs <= 0)
    return `${every} is no setting of ${service.name} holding milliseconds (a positive integer of its config.ts)`;
  if (when && !(when as (config: object) => boolean)(service.config)) return undefined;
  return { job: new PeriodicJob(name, intervalMs, async () => (await call()) as number, logger), runAtStart };
}

/** The instances the app's modules provide (request-scoped ones have none to run). */
function providedInstances(app: INestApplicationContext): Set<object> {
  const discovery = app.get(DiscoveryService);
  const instances = new Set<object>();
  for (const wrapper of [...discovery.getProviders(), ...discovery.getControllers()]) {
    const instance: unknown = wrapper.isDependencyTreeStatic() ? wrapper.instance : undefined;
    if (typeof instance === 'object' && instance !== null) instances.add(instance);
  }
  return instances;
}
