// Polls' use cases on the service tier (src/polls/): open, cast a ballot, close (by a person, at
// closesAt, at the end of the event) and list. The stand-ins and events are test/fixtures.ts's.
import { randomUUID } from 'node:crypto';
import { generateAgentKey } from '@townhall/auth';
import { EngagementTopics, EventTopics, Polls, type PollView, type RequestOf } from '@townhall/contracts';
import { waitFor } from '@townhall/testing';
import { refusalOf, type ServiceHarness } from '@townhall/testing/service';
import { EngagementFixtures } from './fixtures.js';

describe('engagement service: polls', () => {
  let engagement: ServiceHarness;
  const world = new EngagementFixtures();
  const { host, moderator, liveEvent, attendee, change } = world;

  beforeAll(async () => {
    // A short sweep, so that a poll closes at its closesAt within the test.
    engagement = await world.start({ POLL_SWEEP_INTERVAL_MS: '100' });
  });
  afterAll(async () => {
    await engagement?.stop();
  });

  const codeOf = async (request: Promise<unknown>) => (await refusalOf(request)).code;
  const open = (opening: RequestOf<typeof Polls.open>, agent = host) =>
    engagement.send(Polls.open, opening, agent);
  const vote = (poll: PollView, agent: string, optionIds = [poll.options[0]!.id]) =>
    engagement.send(Polls.vote, { eventId: poll.eventId, pollId: poll.id, optionIds }, agent);
  const close = (poll: PollView, agent: string) =>
    engagement.send(Polls.close, { eventId: poll.eventId, pollId: poll.id }, agent);
  const yesNo = (eventId: string) => ({ eventId, question: 'Ship it?', options: ['yes', 'no'] });
  /** How many times the poll was announced closed (what the service published, its outbox empty). */
  const closings = async (pollId: string) => {
    await engagement.settled();
    return engagement.published.filter(
      (event) => event.type === EngagementTopics.pollClosed && (event.data as { id: string }).id === pollId,
    ).length;
  };

  it('opens for speakers, moderators and the host while the event is live, closing in the future', async () => {
    const speaker = generateAgentKey().agentId;
    const eventId = await liveEvent('live', { speakers: [speaker] });
    expect((await open(yesNo(eventId), speaker)).status).toBe('open');
    expect((await open(yesNo(eventId), moderator)).openerId).toBe(moderator);
    expect(await codeOf(open(yesNo(eventId), await attendee(eventId)))).toBe('role.forbidden');
    const past = new Date(Date.now() - 1_000).toISOString();
    expect(await codeOf(open({ ...yesNo(eventId), closesAt: past }))).toBe('validation.failed');
    expect(await codeOf(open(yesNo(await liveEvent('scheduled'))))).toBe('poll.not_live');
  });

  it('takes one ballot per agent, of options of the poll, each once, one unless multiple choice', async () => {
    const eventId = await liveEvent();
    const voter = await attendee(eventId);
    const single = await open(yesNo(eventId));
    const [yes, no] = single.options.map((option) => option.id);
    expect(await codeOf(vote(single, voter, ['maybe']))).toBe('validation.failed');
    expect(await codeOf(vote(single, voter, [yes!, yes!]))).toBe('validation.failed');
    expect(await codeOf(vote(single, voter, [yes!, no!]))).toBe('validation.failed');
    expect(await codeOf(vote(single, generateAgentKey().agentId))).toBe('role.forbidden');
    const voted = await vote(single, voter, [no!]);
    expect([voted.ballots, voted.options.map((option) => option.votes)]).toEqual([1, [0, 1]]);
    expect(await codeOf(vote(single, voter))).toBe('poll.already_voted');

    const multiple = await open({ ...yesNo(eventId), multiple: true });
    const both = await vote(multiple, voter, multiple.options.map((option) => option.id).reverse());
    expect([both.ballots, both.options.map((option) => option.votes)]).toEqual([1, [1, 1]]);
    expect(await codeOf(vote({ ...single, id: randomUUID() }, voter))).toBe('poll.not_found');
  });

  it('hides the counts of an after_close poll until it closes', async () => {
    const eventId = await liveEvent();
    const poll = await open({ ...yesNo(eventId), resultsVisibility: 'after_close' });
    const voted = await vote(poll, await attendee(eventId));
    expect([voted.ballots, voted.options.map((option) => option.votes)]).toEqual([null, [null, null]]);
    const closed = await close(poll, host);
    expect([closed.ballots, closed.options.map((option) => option.votes)]).toEqual([1, [1, 0]]);
  });

  it('closes for its opener, a moderator or the host, once; a ballot after that is refused', async () => {
    const speaker = generateAgentKey().agentId;
    const eventId = await liveEvent('live', { speakers: [speaker] });
    const voter = await attendee(eventId);
    const [mine, another] = [await open(yesNo(eventId), speaker), await open(yesNo(eventId), speaker)];
    expect(await codeOf(close(mine, voter))).toBe('role.forbidden');
    expect((await close(mine, speaker)).status).toBe('closed');
    expect(await codeOf(close(mine, moderator))).toBe('poll.closed');
    expect(await codeOf(vote(mine, voter))).toBe('poll.closed');
    expect((await close(another, moderator)).status).toBe('closed');
    expect([await closings(mine.id), await closings(another.id)]).toEqual([1, 1]);
  });

  it('closes a poll at its closesAt by itself, once', async () => {
    const eventId = await liveEvent();
    const poll = await open({ ...yesNo(eventId), closesAt: new Date(Date.now() + 300).toISOString() });
    const closed = await waitFor('the sweep to close the poll', async () => {
      const { items } = await engagement.send(Polls.list, { eventId });
      return items[0]?.status === 'closed' ? items[0] : undefined;
    });
    expect(closed.closedAt).toBe(poll.closesAt);
    expect(await closings(poll.id)).toBe(1);
  });

  it('closes every open poll when the event ends, and lists them in the order opened', async () => {
    const eventId = await liveEvent();
    const polls = [await open(yesNo(eventId)), await open(yesNo(eventId)), await open(yesNo(eventId))];
    await close(polls[1]!, host);
    await engagement.deliver(
      change(eventId, EventTopics.ended, { status: 'past', endedAt: new Date().toISOString() }),
    );
    const first = await engagement.send(Polls.list, { eventId, limit: 2 });
    const rest = await engagement.send(Polls.list, { eventId, cursor: first.nextCursor! });
    const listed = [...first.items, ...rest.items];
    expect(listed.map((poll) => [poll.id, poll.status])).toEqual(polls.map((poll) => [poll.id, 'closed']));
    expect(await Promise.all(polls.map((poll) => closings(poll.id)))).toEqual([1, 1, 1]);
    expect(await codeOf(engagement.send(Polls.list, { eventId: randomUUID() }))).toBe('event.not_found');
  });
});
