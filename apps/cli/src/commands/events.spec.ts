import type { AgentClient } from '@townhall/sdk';
import { UsageError } from '../failure.js';
import { eventBody, eventChanges } from './events.js';

// agentIds are taken as they are: the directory (and so the client) is asked only for @handles.
const agent = {} as AgentClient;
const AGENT = '7zY1zThH8MiGHiiutWjXrY4m9vReseAfUhFsV7CpVyof';
const unused = () => Promise.reject(new Error('the current event is not needed'));

describe('eventChanges (events update)', () => {
  it('sends only the fields given', async () => {
    expect(await eventChanges(agent, { title: 'New' }, unused)).toEqual({ title: 'New' });
    expect(
      await eventChanges(
        agent,
        {
          description: '',
          startsAt: '2027-03-04T19:00:00.000Z',
          endsAt: '2027-03-04T20:00:00.000Z',
          timezone: 'Europe/Paris',
          capacity: 5,
          speaker: [AGENT],
          moderator: [],
        },
        unused,
      ),
    ).toEqual({
      description: '',
      startsAt: '2027-03-04T19:00:00.000Z',
      endsAt: '2027-03-04T20:00:00.000Z',
      timezone: 'Europe/Paris',
      capacity: 5,
      speakers: [AGENT],
      moderators: [],
    });
  });

  it('counts --duration from --starts-at, or else from the current start', async () => {
    expect(
      await eventChanges(agent, { startsAt: '2027-03-04T19:00:00.000Z', duration: 90 * 60_000 }, unused),
    ).toEqual({ startsAt: '2027-03-04T19:00:00.000Z', endsAt: '2027-03-04T20:30:00.000Z' });
    expect(
      await eventChanges(agent, { duration: 30 * 60_000 }, async () => '2027-03-04T19:00:00.000Z'),
    ).toEqual({ endsAt: '2027-03-04T19:30:00.000Z' });
  });

  it('replaces the ticketing as a whole: one price, tiers or free', async () => {
    expect(await eventChanges(agent, { price: '2500' }, unused)).toEqual({
      ticketing: { mode: 'single', price: '2500' },
    });
    const tiers = [{ id: 'vip', name: 'VIP', price: '100', capacity: 2 }];
    expect(await eventChanges(agent, { tier: tiers, asset: 'EURC' }, unused)).toEqual({
      ticketing: { mode: 'tiered', tiers, asset: 'EURC' },
    });
    expect(await eventChanges(agent, { free: true }, unused)).toEqual({ ticketing: { mode: 'free' } });
  });

  it('puts the flags over --data', async () => {
    expect(
      await eventChanges(
        agent,
        { data: { title: 'Old', agenda: [{ title: 'Intro' }] }, title: 'New' },
        unused,
      ),
    ).toEqual({ title: 'New', agenda: [{ title: 'Intro' }] });
  });

  it('refuses nothing to change and options that exclude each other', async () => {
    await expect(eventChanges(agent, {}, unused)).rejects.toThrow(
      new UsageError('nothing to change: give at least one field, e.g. --title or --starts-at'),
    );
    await expect(
      eventChanges(agent, { endsAt: '2027-03-04T20:00:00.000Z', duration: 60_000 }, unused),
    ).rejects.toThrow('--ends-at and --duration exclude each other');
    await expect(eventChanges(agent, { price: '1', free: true }, unused)).rejects.toThrow(
      'exclude each other',
    );
    await expect(eventChanges(agent, { asset: 'EURC' }, unused)).rejects.toThrow(
      '--asset goes with --price or --tier',
    );
  });

  it('changes the access alone (who may RSVP)', async () => {
    expect(await eventChanges(agent, { access: 'invite' }, unused)).toEqual({ access: 'invite' });
    expect(await eventChanges(agent, { data: { access: 'invite' }, access: 'open' }, unused)).toEqual({
      access: 'open',
    });
    expect(await eventChanges(agent, { access: 'approval' }, unused)).toEqual({ access: 'approval' });
  });

  it('changes either moderation field alone, over what --data says', async () => {
    expect(await eventChanges(agent, { moderation: 'pre' }, unused)).toEqual({
      moderation: { questions: 'pre' },
    });
    expect(await eventChanges(agent, { reportThreshold: 5 }, unused)).toEqual({
      moderation: { reportThreshold: 5 },
    });
    expect(
      await eventChanges(
        agent,
        { data: { moderation: { questions: 'pre', reportThreshold: 9 } }, reportThreshold: 2 },
        unused,
      ),
    ).toEqual({ moderation: { questions: 'pre', reportThreshold: 2 } });
  });
});

describe('eventBody (events create)', () => {
  const create = {
    title: 'AMA',
    startsAt: '2027-03-04T19:00:00.000Z',
    duration: 3_600_000,
    timezone: 'UTC',
    capacity: 10,
  };

  it('sends moderation only when a flag gives it (the server defaults to post, 3)', async () => {
    expect(await eventBody(agent, create)).not.toHaveProperty('moderation');
    expect(await eventBody(agent, { ...create, moderation: 'pre', reportThreshold: 1 })).toMatchObject({
      endsAt: '2027-03-04T20:00:00.000Z',
      moderation: { questions: 'pre', reportThreshold: 1 },
    });
  });

  it('sends access only when --access gives it (the server defaults to open)', async () => {
    expect(await eventBody(agent, create)).not.toHaveProperty('access');
    expect(await eventBody(agent, { ...create, access: 'invite' })).toMatchObject({ access: 'invite' });
    expect(await eventBody(agent, { ...create, access: 'approval' })).toMatchObject({ access: 'approval' });
  });
});
