import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Completions (rewarded ads watched to the end) in the report rollup, so reports carry them as the series do. They
 * arrived together with the rollup: there are none before it to copy.
 */
export class ReportCompletions1763928000000 implements MigrationInterface {
  name = 'ReportCompletions1763928000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "stats_report_hourly" ADD "completions" bigint NOT NULL DEFAULT (0)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "stats_report_hourly" DROP COLUMN "completions"`);
  }
}
