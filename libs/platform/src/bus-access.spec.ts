import { jest } from '@jest/globals';
import { BUS_ACCESS, Events, Inventory } from '@townhall/contracts';
import { assertDurablesGranted, BusAccessClient } from './bus-access.js';
import { HandlerDeclarationError } from './discovery/handler-declarations.js';
import type { Subscription } from './outbox/subscription.js';
import type { ServiceClient } from './service-client.js';

const meta = { requestId: 'r', caller: null };

describe('BusAccessClient: a service sends only what BUS_ACCESS grants it, in every mode', () => {
  const inner = (): ServiceClient & { sent: string[] } => {
    const sent: string[] = [];
    return {
      sent,
      send: jest.fn(async (contract: { pattern: string }) => {
        sent.push(contract.pattern);
        return {} as never;
      }) as unknown as ServiceClient['send'],
      close: async () => undefined,
    };
  };

  it('passes a granted call on, and refuses another before it is sent', async () => {
    const transport = inner();
    const ticketing = new BusAccessClient('ticketing', BUS_ACCESS.ticketing, transport);
    await ticketing.send(Events.access, { eventId: 'e', agentId: 'a' }, meta);
    await expect(ticketing.send(Events.transition, { eventId: 'e', action: 'cancel' }, meta)).rejects.toThrow(
      /ticketing may not send events\.event\.transition/,
    );
    const webhooks = new BusAccessClient('webhooks', BUS_ACCESS.webhooks, transport);
    await expect(webhooks.send(Events.get, { eventId: 'e' }, meta)).rejects.toThrow(/webhooks may not send/);
    const events = new BusAccessClient('events', BUS_ACCESS.events, transport);
    await expect(
      events.send(
        Inventory.changeCapacity,
        { eventId: 'e', version: 1, capacity: 1, ticketing: { mode: 'free' } },
        meta,
      ),
    ).resolves.toEqual({});
    expect(transport.sent).toEqual(['events.event.access', 'ticketing.inventory.change_capacity']);
  });
});

describe('assertDurablesGranted', () => {
  const subscription = (durable: string) => ({ durable }) as Subscription;

  it("accepts an app's own durables and refuses any other, naming it", () => {
    expect(() =>
      assertDurablesGranted('events', BUS_ACCESS.events, [
        subscription('events-ticket-counts'),
        subscription('events-recordings'),
      ]),
    ).not.toThrow();
    expect(() =>
      assertDurablesGranted('events', BUS_ACCESS.events, [subscription('ticketing-events')]),
    ).toThrow(HandlerDeclarationError);
    expect(() =>
      assertDurablesGranted('directory', BUS_ACCESS.directory, [subscription('directory-new')]),
    ).toThrow(/directory-new/);
  });
});
