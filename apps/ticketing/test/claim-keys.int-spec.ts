// Migration 1768150000000 (src/migrations/1768150000000-claim-keys.ts): EventSales' two durables
// claim under their own names, and what was applied under the former key `ticketing` stays applied.
import { randomUUID } from 'node:crypto';
import { claimEventOnce, migrateSchema } from '@townhall/platform/service';
import { schemaUnderTest } from '@townhall/testing';
import { createTicketingDataSource } from '../src/data-source.js';
import { ClaimKeys1768150000000 } from '../src/migrations/1768150000000-claim-keys.js';

it("ticketing's consumers claim under their durables' names, what the former key claimed included; down gives it back", async () => {
  const schema = await schemaUnderTest(createTicketingDataSource);
  const claim = (durable: string, eventId: string) =>
    schema.transaction((manager) => claimEventOnce(manager, 'ticketing', durable, eventId));
  const migrate = (step: 'up' | 'down') => schema.migrate(new ClaimKeys1768150000000(), step);
  try {
    // The schema as the release before has it (no durable claims, no claim_former_key).
    await migrate('down');
    const [cancelled, followed] = [randomUUID(), randomUUID()];
    for (const eventId of [cancelled, followed])
      await schema.query(
        `INSERT INTO ticketing.processed_events (consumer, event_id) VALUES ('ticketing', $1)`,
        [eventId],
      );
    // The migrate command: the migration, then the functions (claim_former_key made anew).
    await migrate('up');
    expect(await migrateSchema(schema.dataSource)).toEqual(['function ticketing.claim_former_key']);
    // Handed over again across the upgrade (an acknowledgement lost): neither is applied twice.
    expect(await claim('ticketing-events', cancelled)).toBe(false);
    expect(await claim('ticketing-series', followed)).toBe(false);
    // One that nobody applied yet is claimed, under the former key too: a replica of the release
    // before, handed it, finds it claimed; and one that such a replica applied during the
    // rollout is not applied again here.
    const since = randomUUID();
    expect(await claim('ticketing-series', since)).toBe(true);
    expect(await claim('ticketing', since)).toBe(false);
    const byTheReleaseBefore = randomUUID();
    expect(await claim('ticketing', byTheReleaseBefore)).toBe(true);
    expect(await claim('ticketing-events', byTheReleaseBefore)).toBe(false);

    // Down: the former key holds what the durables claimed since, and their names go.
    await migrate('down');
    expect(await claim('ticketing', since)).toBe(false);
    const [left] = await schema.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ticketing.processed_events WHERE consumer <> 'ticketing'`,
    );
    expect(left?.n).toBe(0);
  } finally {
    await schema.close();
  }
});
