import { MigrationInterface, QueryRunner } from 'typeorm';

export class BillableTraffic1763881200000 implements MigrationInterface {
  name = 'BillableTraffic1763881200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE \`clicks\` ADD \`status\` varchar(16) NOT NULL DEFAULT 'counted', ADD \`invalidReason\` varchar(32) NULL`);
    await queryRunner.query(
      `ALTER TABLE \`stats_hourly\` ADD \`unbilledClicks\` bigint NOT NULL DEFAULT '0', ADD \`invalidClicks\` bigint NOT NULL DEFAULT '0', ADD \`invalidImpressions\` bigint NOT NULL DEFAULT '0'`,
    );
    await queryRunner.query(
      `ALTER TABLE \`campaigns\` ADD \`unbilledClicks\` bigint NOT NULL DEFAULT '0', ADD \`invalidClicks\` bigint NOT NULL DEFAULT '0', ADD \`invalidImpressions\` bigint NOT NULL DEFAULT '0'`,
    );
    await queryRunner.query(
      `ALTER TABLE \`ad_blocks\` ADD \`unbilledClicks\` bigint NOT NULL DEFAULT '0', ADD \`invalidClicks\` bigint NOT NULL DEFAULT '0', ADD \`invalidImpressions\` bigint NOT NULL DEFAULT '0'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE \`ad_blocks\` DROP COLUMN \`invalidImpressions\`, DROP COLUMN \`invalidClicks\`, DROP COLUMN \`unbilledClicks\``);
    await queryRunner.query(`ALTER TABLE \`campaigns\` DROP COLUMN \`invalidImpressions\`, DROP COLUMN \`invalidClicks\`, DROP COLUMN \`unbilledClicks\``);
    await queryRunner.query(`ALTER TABLE \`stats_hourly\` DROP COLUMN \`invalidImpressions\`, DROP COLUMN \`invalidClicks\`, DROP COLUMN \`unbilledClicks\``);
    await queryRunner.query(`ALTER TABLE \`clicks\` DROP COLUMN \`invalidReason\`, DROP COLUMN \`status\``);
  }
}
