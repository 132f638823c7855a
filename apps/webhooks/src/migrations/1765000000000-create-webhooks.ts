import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateWebhooks1765000000000 implements MigrationInterface {
  name = 'CreateWebhooks1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // An agent's subscriptions. `types` holds domain event types and `townhall.<aggregate>.*`.
    await queryRunner.query(`
      CREATE TABLE webhooks.subscriptions (
        id         uuid PRIMARY KEY,
        agent_id   text NOT NULL,
        url        text NOT NULL,
        types      text[] NOT NULL CONSTRAINT subscriptions_types CHECK (cardinality(types) BETWEEN 1 AND 50),
        event_id   text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX subscriptions_agent_idx ON webhooks.subscriptions (agent_id, created_at)`,
    );
    // How many subscriptions each agent holds: the limit of 20 is a check constraint, so two
    // subscriptions made at once cannot both be the 20th.
    await queryRunner.query(`
      CREATE TABLE webhooks.agent_subscriptions (
        agent_id text PRIMARY KEY,
        held     integer NOT NULL CONSTRAINT agent_subscriptions_limit CHECK (held BETWEEN 0 AND 20)
      )`);

    // Projections of other services' domain events: who may see what (fan-out/audience.ts).
    await queryRunner.query(`
      CREATE TABLE webhooks.event_hosts (
        event_id text PRIMARY KEY,
        host_id  text NOT NULL
      )`);
    await queryRunner.query(`
      CREATE TABLE webhooks.series_hosts (
        series_id text PRIMARY KEY,
        host_id   text NOT NULL
      )`);
    await queryRunner.query(`
      CREATE TABLE webhooks.tickets (
        ticket_id text PRIMARY KEY,
        event_id  text NOT NULL,
        holder_id text NOT NULL,
        live      boolean NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX tickets_live_idx ON webhooks.tickets (event_id) WHERE live`);

    // What is sent: the exact bytes of each domain event that has deliveries (what is signed).
    await queryRunner.query(`
      CREATE TABLE webhooks.messages (
        id         uuid PRIMARY KEY,
        type       text NOT NULL,
        body       text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One delivery per subscription and domain event; `next_attempt_at` is also the lease of
    // the replica attempting it (moved past the attempt's end when it is taken).
    await queryRunner.query(`
      CREATE TABLE webhooks.deliveries (
        id              bigserial PRIMARY KEY,
        subscription_id uuid NOT NULL REFERENCES webhooks.subscriptions (id) ON DELETE CASCADE,
        message_id      uuid NOT NULL REFERENCES webhooks.messages (id),
        state           text NOT NULL DEFAULT 'pending'
                        CONSTRAINT deliveries_state CHECK (state IN ('pending', 'delivered', 'given_up')),
        attempts        integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        created_at      timestamptz NOT NULL DEFAULT now(),
        concluded_at    timestamptz,
        CONSTRAINT deliveries_once UNIQUE (subscription_id, message_id)
      )`);
    await queryRunner.query(
      `CREATE INDEX deliveries_due_idx ON webhooks.deliveries (next_attempt_at) WHERE state = 'pending'`,
    );
    await queryRunner.query(`CREATE INDEX deliveries_message_idx ON webhooks.deliveries (message_id)`);
    await queryRunner.query(
      `CREATE INDEX deliveries_concluded_idx ON webhooks.deliveries (concluded_at) WHERE state <> 'pending'`,
    );
    // Every attempt, for GET /webhooks/{id}/deliveries (the latest 100 per subscription are kept).
    await queryRunner.query(`
      CREATE TABLE webhooks.attempts (
        id              bigserial PRIMARY KEY,
        subscription_id uuid NOT NULL REFERENCES webhooks.subscriptions (id) ON DELETE CASCADE,
        message_id      uuid NOT NULL,
        type            text NOT NULL,
        attempt         integer NOT NULL,
        attempted_at    timestamptz NOT NULL,
        status          integer,
        duration_ms     integer NOT NULL,
        error           text,
        outcome         text NOT NULL
                        CONSTRAINT attempts_outcome CHECK (outcome IN ('delivered', 'retrying', 'given_up'))
      )`);
    await queryRunner.query(
      `CREATE INDEX attempts_subscription_idx ON webhooks.attempts (subscription_id, id DESC)`,
    );

    // The fan-out consumer's dedupe (claimEventsOnce); this service has no outbox.
    await queryRunner.query(`
      CREATE TABLE webhooks.processed_events (
        consumer     text NOT NULL,
        event_id     uuid NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, event_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'processed_events',
      'attempts',
      'deliveries',
      'messages',
      'tickets',
      'series_hosts',
      'event_hosts',
      'agent_subscriptions',
      'subscriptions',
    ])
      await queryRunner.query(`DROP TABLE webhooks.${table}`);
  }
}
