import type { MigrationInterface, QueryRunner } from 'typeorm';

/** An event's access may also be `approval` (docs/product.md "Who may come"). */
export class EventApproval1767700000000 implements MigrationInterface {
  name = 'EventApproval1767700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events.events DROP CONSTRAINT events_access`);
    await queryRunner.query(`
      ALTER TABLE events.events ADD CONSTRAINT events_access CHECK (access IN ('open', 'approval', 'invite'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE events.events SET access = 'open' WHERE access = 'approval'`);
    await queryRunner.query(`ALTER TABLE events.events DROP CONSTRAINT events_access`);
    await queryRunner.query(
      `ALTER TABLE events.events ADD CONSTRAINT events_access CHECK (access IN ('open', 'invite'))`,
    );
  }
}
