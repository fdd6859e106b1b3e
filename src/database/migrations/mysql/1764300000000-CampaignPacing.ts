import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Delivery pacing and the advertiser's day (src/campaigns/pacing.ts, src/common/time-zone.ts): campaigns gain their
 * pacing and a copy of their account's zone schedule, and `spentDay` becomes the key of a budget day (its start in
 * minutes since the epoch, ten digits) instead of a UTC date. Campaigns that exist keep spending as they did
 * (`asap`); new ones are `even` unless they say otherwise.
 */
export class CampaignPacing1764300000000 implements MigrationInterface {
  name = 'CampaignPacing1764300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE \`campaigns\` ADD \`pacing\` varchar(8) NOT NULL DEFAULT 'even'`);
    await queryRunner.query(`ALTER TABLE \`campaigns\` ADD \`timeZone\` varchar(64) NOT NULL DEFAULT 'UTC'`);
    await queryRunner.query(`ALTER TABLE \`campaigns\` ADD \`nextTimeZone\` varchar(64) NULL`);
    await queryRunner.query(`ALTER TABLE \`campaigns\` ADD \`timeZoneChangesAt\` bigint NULL`);
    await queryRunner.query(`UPDATE \`campaigns\` SET \`pacing\` = 'asap'`);
    await queryRunner.query(
      `UPDATE \`campaigns\` c JOIN \`accounts\` a ON a.\`id\` = c.\`accountId\`
       SET c.\`timeZone\` = a.\`timeZone\`, c.\`nextTimeZone\` = a.\`nextTimeZone\`, c.\`timeZoneChangesAt\` = a.\`timeZoneChangesAt\``,
    );
    await queryRunner.query(
      `UPDATE \`campaigns\` SET \`spentDay\` = LPAD(TIMESTAMPDIFF(MINUTE, '1970-01-01', \`spentDay\`), 10, '0') WHERE \`spentDay\` LIKE '____-__-__'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE \`campaigns\` SET \`spentDay\` = DATE_FORMAT(TIMESTAMPADD(MINUTE, CAST(\`spentDay\` AS UNSIGNED), '1970-01-01'), '%Y-%m-%d') WHERE \`spentDay\` <> ''`,
    );
    await queryRunner.query(`ALTER TABLE \`campaigns\` DROP COLUMN \`timeZoneChangesAt\``);
    await queryRunner.query(`ALTER TABLE \`campaigns\` DROP COLUMN \`nextTimeZone\``);
    await queryRunner.query(`ALTER TABLE \`campaigns\` DROP COLUMN \`timeZone\``);
    await queryRunner.query(`ALTER TABLE \`campaigns\` DROP COLUMN \`pacing\``);
  }
}
