import { MigrationInterface, QueryRunner } from 'typeorm';

const COUNTERS = ['unbilledClicks', 'invalidClicks', 'invalidImpressions'];
const COUNTED_TABLES = ['stats_hourly', 'campaigns', 'ad_blocks'];

export class BillableTraffic1763881200000 implements MigrationInterface {
  name = 'BillableTraffic1763881200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "clicks" ADD COLUMN "status" varchar(16) NOT NULL DEFAULT ('counted')`);
    await queryRunner.query(`ALTER TABLE "clicks" ADD COLUMN "invalidReason" varchar(32)`);
    for (const table of COUNTED_TABLES) {
      for (const column of COUNTERS) {
        await queryRunner.query(`ALTER TABLE "${table}" ADD COLUMN "${column}" bigint NOT NULL DEFAULT (0)`);
      }
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [...COUNTED_TABLES].reverse()) {
      for (const column of [...COUNTERS].reverse()) {
        await queryRunner.query(`ALTER TABLE "${table}" DROP COLUMN "${column}"`);
      }
    }
    await queryRunner.query(`ALTER TABLE "clicks" DROP COLUMN "invalidReason"`);
    await queryRunner.query(`ALTER TABLE "clicks" DROP COLUMN "status"`);
  }
}
