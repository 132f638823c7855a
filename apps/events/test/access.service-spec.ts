// Who may come, as the events service records it (docs/product.md "Who may come"): an event's
// `access`, set at creation or by PATCH while scheduled, and each occurrence of a series from its
// template. Ticketing holds the invites and decides the RSVPs (apps/ticketing/test/invites.service-spec.ts).
import { generateAgentKey } from '@townhall/auth';
import { Events, EventTopics, Series } from '@townhall/contracts';
import { waitFor } from '@townhall/testing';
import { refusalOf, ServiceHarness } from '@townhall/testing/service';
import { events as eventsService } from '../src/service.js';

const agent = () => generateAgentKey().agentId;
const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

describe('events service: who may come', () => {
  let events: ServiceHarness;

  beforeAll(async () => {
    events = await ServiceHarness.start(eventsService);
  });
  afterAll(async () => {
    await events?.stop();
  });

  const fields = {
    title: 'Members only',
    startsAt: inHours(24),
    endsAt: inHours(25),
    timezone: 'UTC',
    capacity: 10,
  };

  it('keeps an event open unless it is made invite only or needing approval, at creation or while scheduled', async () => {
    const host = agent();
    expect((await events.send(Events.create, fields, host)).access).toBe('open');
    const closed = await events.send(Events.create, { ...fields, access: 'invite' }, host);
    expect(closed.access).toBe('invite');
    expect(await events.send(Events.get, { eventId: closed.id })).toMatchObject({ access: 'invite' });

    const opened = await events.send(
      Events.update,
      { eventId: closed.id, changes: { access: 'open' } },
      host,
    );
    expect(opened).toMatchObject({ access: 'open', version: closed.version + 1 });
    const announced = await waitFor('the change announced', async () => {
      const updates = events.published.filter(
        (event) => event.type === EventTopics.updated && event.subject === closed.id,
      );
      return updates.length > 0 ? updates : undefined;
    });
    expect(announced.map((event) => (event.data as { access: string }).access)).toEqual(['open']);

    // Approval, stored as any mode is (the migration's CHECK takes it).
    expect(
      await events.send(Events.update, { eventId: closed.id, changes: { access: 'approval' } }, host),
    ).toMatchObject({ access: 'approval' });
    expect(await events.send(Events.get, { eventId: closed.id })).toMatchObject({ access: 'approval' });

    for (const access of ['APPROVAL', 'INVITE', 'closed', '', null, 1])
      expect(
        (
          await refusalOf(
            events.send(Events.update, { eventId: closed.id, changes: { access } } as never, host),
          )
        ).code,
      ).toBe('validation.failed');
    expect(
      (
        await refusalOf(
          events.send(Events.update, { eventId: closed.id, changes: { access: 'invite' } }, agent()),
        )
      ).code,
    ).toBe('role.forbidden');
    await events.send(Events.transition, { eventId: closed.id, action: 'cancel' }, host);
    expect(
      (
        await refusalOf(
          events.send(Events.update, { eventId: closed.id, changes: { access: 'invite' } }, host),
        )
      ).code,
    ).toBe('event.not_editable');
  });

  it("gives each occurrence of a series its template's access", async () => {
    const host = agent();
    const series = await events.send(
      Series.create,
      {
        title: 'Members night',
        description: '',
        recurrence: { startsAt: '2027-03-04T19:00', timezone: 'UTC', rrule: 'FREQ=WEEKLY;COUNT=2' },
        template: { durationMinutes: 60, capacity: 50, access: 'invite' },
      },
      host,
    );
    expect(series.template.access).toBe('invite');
    const occurrences = await events.send(Events.list, { seriesId: series.id, limit: 10 });
    expect(occurrences.items.map((event) => event.access)).toEqual(['invite', 'invite']);
    const open = await events.send(
      Series.create,
      {
        title: 'Open night',
        description: '',
        recurrence: { startsAt: '2027-03-04T19:00', timezone: 'UTC', rrule: 'FREQ=WEEKLY;COUNT=1' },
        template: { durationMinutes: 60, capacity: 50 },
      },
      host,
    );
    expect(open.template.access).toBe('open');
  });
});
