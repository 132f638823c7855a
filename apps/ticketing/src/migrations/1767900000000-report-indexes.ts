import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event's report (docs/product.md "The report"; src/reports/) reads its revenue and refunds
 * from the ledger, an event's entries at a time: without this index each report would read the
 * whole ledger, the largest table of the schema. Faucet entries name no event and stay out of it.
 */
export class ReportIndexes1767900000000 implements MigrationInterface {
  name = 'ReportIndexes1767900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX ledger_by_event ON ticketing.ledger_entries (event_id, type) WHERE event_id IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ticketing.ledger_by_event`);
  }
}
