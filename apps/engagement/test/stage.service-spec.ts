// The stage's use cases on the service tier (src/stage/): post, hide and list. The stand-ins and
// events are test/fixtures.ts's.
import { randomUUID } from 'node:crypto';
import { generateAgentKey } from '@townhall/auth';
import { EngagementTopics, EventTopics, Stage, type StageMessageView } from '@townhall/contracts';
import { refusalOf, type ServiceHarness } from '@townhall/testing/service';
import { EngagementFixtures } from './fixtures.js';

describe('engagement service: the stage', () => {
  let engagement: ServiceHarness;
  const world = new EngagementFixtures();
  const { host, moderator, liveEvent, attendee, change } = world;

  beforeAll(async () => {
    engagement = await world.start();
  });
  afterAll(async () => {
    await engagement?.stop();
  });

  const codeOf = async (request: Promise<unknown>) => (await refusalOf(request)).code;
  const post = (eventId: string, agent: string, body = 'Hello') =>
    engagement.send(Stage.post, { eventId, body }, agent);
  const hide = (message: StageMessageView, agent: string) =>
    engagement.send(Stage.hide, { eventId: message.eventId, messageId: message.id }, agent);

  it('takes posts from speakers, moderators and the host while live, in sequence from 1', async () => {
    const speaker = generateAgentKey().agentId;
    const eventId = await liveEvent('live', { speakers: [speaker] });
    const posted = [await post(eventId, speaker), await post(eventId, moderator), await post(eventId, host)];
    expect(posted.map((message) => message.sequence)).toEqual([1, 2, 3]);
    expect(await codeOf(post(eventId, await attendee(eventId)))).toBe('role.forbidden');
    expect(await codeOf(post(await liveEvent('scheduled'), host))).toBe('stage.closed');
    await engagement.deliver(
      change(eventId, EventTopics.ended, { status: 'past', endedAt: new Date().toISOString() }),
    );
    expect(await codeOf(post(eventId, host))).toBe('stage.closed');
  });

  it('hides a message for moderators and the host, at any time: its place stays, its body goes; again is a no-op', async () => {
    const speaker = generateAgentKey().agentId;
    const eventId = await liveEvent('live', { speakers: [speaker] });
    const [first, second] = [await post(eventId, speaker, 'Oops'), await post(eventId, speaker, 'Fine')];
    expect(await codeOf(hide(first, speaker))).toBe('role.forbidden');
    const hidden = await hide(first, moderator);
    expect(hidden).toMatchObject({ sequence: 1, hidden: true, body: null });
    expect(await hide(first, host)).toEqual(hidden);
    expect(await codeOf(hide({ ...first, id: randomUUID() }, host))).toBe('stage.message_not_found');
    await engagement.settled();
    const announced = engagement.published.filter(
      (event) =>
        event.type === EngagementTopics.stageHidden && (event.data as { id: string }).id === first.id,
    );
    expect(announced).toHaveLength(1);

    // After the end too, so that a recording can be cleaned.
    await engagement.deliver(
      change(eventId, EventTopics.ended, { status: 'past', endedAt: new Date().toISOString() }),
    );
    expect((await hide(second, host)).hidden).toBe(true);
    const { items } = await engagement.send(Stage.list, { eventId });
    expect(items.map((message) => [message.sequence, message.body])).toEqual([
      [1, null],
      [2, null],
    ]);
  });

  it('lists in sequence after a sequence or a cursor it gave, a page at a time', async () => {
    const eventId = await liveEvent();
    for (const body of ['one', 'two', 'three']) await post(eventId, host, body);
    const first = await engagement.send(Stage.list, { eventId, limit: 2 });
    expect(first.items.map((message) => message.body)).toEqual(['one', 'two']);
    const rest = await engagement.send(Stage.list, { eventId, cursor: first.nextCursor! });
    expect([rest.items.map((message) => message.body), rest.nextCursor]).toEqual([['three'], null]);
    const after = await engagement.send(Stage.list, { eventId, after: 2 });
    expect(after.items.map((message) => message.body)).toEqual(['three']);
    expect(await codeOf(engagement.send(Stage.list, { eventId, cursor: 'abc' }))).toBe('validation.failed');
    expect(await codeOf(engagement.send(Stage.list, { eventId: randomUUID() }))).toBe('event.not_found');
  });
});
