import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delivery's history no longer keeps what the receiver answered: an attempt that got a non-2xx
 * status records `HTTP <status>`, never the first bytes of the body. Those bytes told whoever
 * subscribed what any address the service can reach answers (a port scan with partial reads);
 * the ones already kept are dropped here.
 */
export class AttemptsWithoutAnswers1767300000000 implements MigrationInterface {
  name = 'AttemptsWithoutAnswers1767300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE webhooks.attempts SET error = substring(error FROM '^HTTP [0-9]{3}')
        WHERE error ~ '^HTTP [0-9]{3}: '`,
    );
  }

  async down(): Promise<void> {
    // What was dropped is gone; the rows are valid as they are for the code before this one.
  }
}
