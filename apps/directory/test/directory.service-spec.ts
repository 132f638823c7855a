// The directory service on its own (the service tier: libs/testing/src/service.ts).
import { generateAgentKey } from '@townhall/auth';
import { Directory, DomainError, type CardInput } from '@townhall/contracts';
import { waitFor } from '@townhall/testing';
import { refusalOf, ServiceHarness } from '@townhall/testing/service';
import { directory as directoryService } from '../src/service.js';

const agent = () => generateAgentKey().agentId;
const codeOf = async (promise: Promise<unknown>) => (await refusalOf(promise)).code;

describe('directory service', () => {
  let directory: ServiceHarness;

  beforeAll(async () => {
    directory = await ServiceHarness.start(directoryService);
  });
  afterAll(async () => {
    await directory?.stop();
  });

  const put = (caller: string | null, card: CardInput) => directory.send(Directory.putCard, card, caller);
  const cardsOf = async (agentId: string) =>
    (
      await directory.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM directory.cards WHERE agent_id = $1`,
        [agentId],
      )
    )[0]!.count;

  it('creates a card, replaces it, and serves it by agent and by handle (any case)', async () => {
    const alice = agent();
    const created = await put(alice, { handle: 'Alice_1', displayName: 'Alice', links: [] });
    expect(created.created).toBe(true);
    expect(created.card).toMatchObject({ agentId: alice, handle: 'alice_1', displayName: 'Alice' });

    const replaced = await put(alice, { handle: 'alice_1', bio: 'Agents only' });
    expect(replaced.created).toBe(false);
    // Fields left out are cleared: a PUT replaces the whole card.
    expect(replaced.card).toMatchObject({ displayName: null, bio: 'Agents only' });
    expect(replaced.card.createdAt).toBe(created.card.createdAt);

    expect(await directory.send(Directory.getCard, { agentId: alice })).toEqual(replaced.card);
    expect(await directory.send(Directory.resolveHandle, { handle: 'ALICE_1' })).toEqual(replaced.card);
  });

  it('frees a handle its holder gives up, and refuses one another agent holds', async () => {
    const [bob, carol] = [agent(), agent()];
    await put(bob, { handle: 'bob_handle' });
    expect(await codeOf(put(carol, { handle: 'BOB_HANDLE' }))).toBe('directory.handle_taken');
    expect(await cardsOf(carol)).toBe(0);
    await put(bob, { handle: 'bob_renamed' });
    expect((await put(carol, { handle: 'bob_handle' })).card.agentId).toBe(carol);
    expect(await codeOf(directory.send(Directory.resolveHandle, { handle: 'nobody_here' }))).toBe(
      'directory.handle_not_found',
    );
    expect(await codeOf(directory.send(Directory.getCard, { agentId: agent() }))).toBe(
      'directory.card_not_found',
    );
  });

  it('gives a handle that twenty agents claim at once to exactly one of them', async () => {
    const claimants = Array.from({ length: 20 }, agent);
    const outcomes = await Promise.allSettled(
      claimants.map((claimant) => put(claimant, { handle: 'the_one' })),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of outcomes)
      if (outcome.status === 'rejected')
        expect((outcome.reason as DomainError).code).toBe('directory.handle_taken');
    const rows = await directory.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM directory.cards WHERE lower(handle) = 'the_one'`,
    );
    expect(rows[0]!.count).toBe(1);
  });

  it("takes first PUTs of one agent's card at once as one card, created once, none refused", async () => {
    // The race is a few microseconds wide (both statements past ON CONFLICT's check before
    // either has its index entries): forty agents, eight PUTs each, all at once.
    const agents = Array.from({ length: 40 }, agent);
    const outcomes = await Promise.allSettled(
      agents.flatMap((agentId, i) => Array.from({ length: 8 }, () => put(agentId, { handle: `twin_${i}` }))),
    );
    expect(outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []))).toEqual(
      [],
    );
    const created = outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value.created);
    expect(created).toHaveLength(agents.length);
    for (const agentId of agents) expect(await cardsOf(agentId)).toBe(1);
  });

  it('refuses bad input with validation.failed before anything is written, and an unsigned write', async () => {
    const dave = agent();
    const tooManyLinks = Array.from({ length: 11 }, () => ({ label: 'x', url: 'https://x.test' }));
    for (const card of [
      { handle: 'my-agent' },
      { handle: 'ab' },
      { handle: 'ok\u0000handle' },
      { handle: 'ok_handle', avatarUrl: 'javascript:alert(1)' },
      { handle: 'ok_handle', extra: true },
      { handle: 'ok_handle', links: tooManyLinks },
      { handle: 'ok_handle', bio: 'x'.repeat(1001) },
    ] as CardInput[]) {
      expect([card, await codeOf(put(dave, card))]).toEqual([card, 'validation.failed']);
    }
    expect(await codeOf(put(null, { handle: 'unsigned' }))).toBe('auth.malformed');
    expect(await codeOf(directory.send(Directory.getCard, { agentId: 'not-an-agent' }))).toBe(
      'validation.failed',
    );
    expect(await cardsOf(dave)).toBe(0);
  });

  it('serves several cards at once, in the order asked, each once, leaving out agents without one', async () => {
    const [erin, frank, nobody] = [agent(), agent(), agent()];
    await put(erin, { handle: `erin_${Date.now().toString(36)}` });
    await put(frank, { handle: `frank_${Date.now().toString(36)}` });
    const { items } = await directory.send(Directory.getCards, { agentIds: [frank, nobody, erin, frank] });
    expect(items.map((card) => card.agentId)).toEqual([frank, erin]);
    // As the gateway passes `?agentIds=a,b`: one comma-separated string.
    const byQuery = await directory.send(Directory.getCards, { agentIds: `${erin},${nobody}` });
    expect(byQuery.items.map((card) => card.agentId)).toEqual([erin]);
    for (const agentIds of [[], '', 'not-an-agent', `${erin},,${frank}`, Array.from({ length: 101 }, agent)])
      expect(await codeOf(directory.send(Directory.getCards, { agentIds }))).toBe('validation.failed');
  });
});

describe('directory service: what it announces', () => {
  let directory: ServiceHarness;

  beforeAll(async () => {
    directory = await ServiceHarness.start(directoryService);
  });
  afterAll(async () => {
    await directory?.stop();
  });

  const announced = (agentId: string) =>
    directory.published.filter(
      (event) => event.type === 'townhall.card.updated' && event.subject === agentId,
    );

  it('announces each card made or replaced, as it is now; a refused PUT announces nothing', async () => {
    const [alice, bob] = [agent(), agent()];
    const made = await directory.send(Directory.putCard, { handle: 'announced_a' }, alice);
    const replaced = await directory.send(
      Directory.putCard,
      { handle: 'announced_a', displayName: 'Alice' },
      alice,
    );
    await expect(
      refusalOf(directory.send(Directory.putCard, { handle: 'announced_a' }, bob)),
    ).resolves.toMatchObject({ code: 'directory.handle_taken' });
    await waitFor('both announcements', async () => (announced(alice).length >= 2 ? true : undefined));
    expect(announced(alice).map((event) => event.data)).toEqual([made.card, replaced.card]);
    expect(announced(alice).map((event) => event.source)).toEqual([
      'townhall/directory',
      'townhall/directory',
    ]);
    expect(announced(bob)).toEqual([]);
    expect(directory.offCatalog()).toEqual([]);
  });
});
