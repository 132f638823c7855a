// Production's two database roles (k8s/postgres-roles.sql, k8s/README.md "Database roles"):
// migrations as the role that owns the schemas, every app as a role that may only read and write
// rows. The whole product works that way, and the app role really cannot change the schema.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { EventFieldsInput } from '@townhall/contracts';
import { AppProcess, APPS, REPO_ROOT, Topology, waitFor, type DatabaseRoles } from '@townhall/testing';
import pg from 'pg';

const HOUR = 3_600_000;

function anEvent(overrides: Partial<EventFieldsInput> = {}): EventFieldsInput {
  const startsAt = new Date(Date.now() + HOUR);
  return {
    title: 'Least privilege',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 10,
    ...overrides,
  };
}

/** The SQLSTATE a statement fails with as `url`'s role (undefined when it succeeds). */
async function failureAs(url: string, sql: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  } finally {
    await client.end();
  }
}

describe('database roles: migrations own the schemas, apps only read and write rows', () => {
  let topology: Topology;
  let urls: DatabaseRoles;

  beforeAll(async () => {
    topology = await Topology.start({ databaseRoles: true, env: { LEDGER_FAUCET: 'true' } });
    const { migrateUrl, appUrl } = topology.database;
    urls = { migrateUrl: migrateUrl!, appUrl: appUrl! };
  });
  afterAll(async () => {
    await topology?.stop();
  });

  it('runs every service as the app role: directory, events and series, paid tickets, Q&A, polls, a cancellation', async () => {
    const host = topology.client();
    const buyer = topology.client();
    await host.directory.putMe({ handle: `host_${Date.now()}` });
    expect((await buyer.directory.get(host.agentId)).agentId).toBe(host.agentId);

    const series = await host.series.create({
      title: 'Weekly',
      recurrence: { startsAt: '2027-03-04T19:00', timezone: 'UTC', rrule: 'FREQ=WEEKLY;COUNT=2' },
      template: { durationMinutes: 30, capacity: 10 },
    });
    await buyer.series.follow(series.id);

    const paid = await host.events.create(anEvent({ ticketing: { mode: 'single', price: '300' } }));
    await buyer.ledger.faucet('1000');
    await buyer.tickets.rsvp(paid.id, { maxPrice: '300' });
    expect((await host.tickets.attendees(paid.id)).items).toHaveLength(1);

    await host.events.start(paid.id);
    const question = await buyer.questions.submit(paid.id, 'Who may alter the tables?');
    await host.questions.upvote(paid.id, question.id);
    const poll = await host.polls.open(paid.id, { question: 'Roles?', options: ['One', 'Two'] });
    await buyer.polls.vote(paid.id, poll.id, [poll.options[1]!.id]);
    await host.polls.close(paid.id, poll.id);
    await host.events.end(paid.id);

    // A cancellation crosses services through the outboxes and durable consumers (the
    // processed-events tables): refunds arrive, written by the app role.
    const cancelled = await host.events.create(anEvent({ ticketing: { mode: 'single', price: '200' } }));
    await buyer.tickets.rsvp(cancelled.id, { maxPrice: '200' });
    expect((await buyer.ledger.balance()).balances).toEqual(
      expect.arrayContaining([expect.objectContaining({ amount: '500' })]),
    );
    await host.events.cancel(cancelled.id);
    await waitFor('the refund', async () => {
      const { balances } = await buyer.ledger.balance();
      return balances.some((balance) => balance.amount === '700') ? true : undefined;
    });

    // Every outbox drained: the relays published and deleted their rows as the app role.
    const admin = new pg.Client({ connectionString: topology.database.url });
    await admin.connect();
    try {
      const { rows: outboxes } = await admin.query<{ schema: string }>(
        `SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'outbox'`,
      );
      expect(outboxes.map((row) => row.schema).sort()).toEqual([
        'directory',
        'engagement',
        'events',
        'ticketing',
      ]);
      await waitFor('every outbox published', async () => {
        for (const { schema } of outboxes) {
          const { rows } = await admin.query<{ pending: number }>(
            `SELECT count(*)::int AS pending FROM "${schema}".outbox`,
          );
          if (rows[0]!.pending > 0) return undefined;
        }
        return true;
      });
      // And the schemas belong to the migrator, not to the apps' role.
      const { rows: owners } = await admin.query<{ owner: string }>(
        `SELECT DISTINCT pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname = ANY ($1)`,
        [APPS.services],
      );
      expect(owners.map((row) => row.owner)).toEqual([new URL(urls.migrateUrl).username]);
    } finally {
      await admin.end();
    }
  });

  it('refuses the app role every change of the schema, and a migration run as it', async () => {
    const denied = '42501'; // insufficient_privilege
    expect(await failureAs(urls.appUrl, 'CREATE TABLE events.intruder (id int)')).toBe(denied);
    expect(await failureAs(urls.appUrl, 'DROP TABLE ticketing.ledger_entries')).toBe(denied);
    expect(await failureAs(urls.appUrl, 'ALTER TABLE ticketing.tickets ADD COLUMN x int')).toBe(denied);
    expect(await failureAs(urls.appUrl, 'TRUNCATE ticketing.ledger_entries')).toBe(denied);
    expect(await failureAs(urls.appUrl, 'CREATE SCHEMA intruder')).toBe(denied);
    expect(await failureAs(urls.appUrl, 'CREATE TEMP TABLE scratch (id int)')).toBe(denied);
    expect(await failureAs(urls.appUrl, 'CREATE TABLE public.intruder (id int)')).toBe(denied);
    // What it may do: rows.
    expect(await failureAs(urls.appUrl, 'SELECT count(*) FROM ticketing.ledger_entries')).toBeUndefined();

    const asApp = await AppProcess.run('events', 'migrate.js', { DATABASE_URL: urls.appUrl }).then(
      () => 'succeeded',
      (error: Error) => error.message,
    );
    expect(asApp).toMatch(/permission denied|42501/i);
  });

  it('lets a later migration add a table the apps can use at once, with no grants re-run', async () => {
    // The migrate command again as the migrator: nothing to do, and no error.
    await AppProcess.run('events', 'migrate.js', { DATABASE_URL: urls.migrateUrl });
    expect(
      await failureAs(
        urls.migrateUrl,
        'CREATE TABLE events.added_later (id bigserial PRIMARY KEY, note text)',
      ),
    ).toBeUndefined();
    expect(
      await failureAs(urls.appUrl, `INSERT INTO events.added_later (note) VALUES ('ok')`),
    ).toBeUndefined();
    expect(await failureAs(urls.appUrl, 'DELETE FROM events.added_later')).toBeUndefined();
    // Running the roles file again (as a password rotation does) changes nothing that works.
    const { stderr } = await promisify(execFile)('psql', [
      topology.database.url,
      ...['-v', 'ON_ERROR_STOP=1', '-q', '-f', join(REPO_ROOT, 'k8s/postgres-roles.sql')],
      ...['-v', `database=${topology.database.name}`],
      ...['-v', `migrator_role=${new URL(urls.migrateUrl).username}`, '-v', 'migrator_password=rotated-1'],
      ...['-v', `app_role=${new URL(urls.appUrl).username}`, '-v', 'app_password=rotated-2'],
    ]);
    expect(stderr).toBe('');
    expect(await failureAs(urls.appUrl, 'SELECT count(*) FROM events.added_later')).toBeUndefined();
  });
});
