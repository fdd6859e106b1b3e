import { MigrationInterface, QueryRunner } from 'typeorm';

export class Conversions1763863200000 implements MigrationInterface {
  name = 'Conversions1763863200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE \`conversions\` (\`id\` varchar(26) NOT NULL, \`advertiserId\` varchar(26) NOT NULL, \`messengerUserId\` varchar(128) NOT NULL, \`clickId\` varchar(26) NULL, \`campaignId\` varchar(26) NULL, \`createdAt\` bigint NOT NULL, INDEX \`idx_conversions_advertiser_time\` (\`advertiserId\`, \`createdAt\`), UNIQUE INDEX \`uq_conversions_click\` (\`clickId\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
    );
    await queryRunner.query(
      `CREATE TABLE \`verification_calls\` (\`id\` varchar(26) NOT NULL, \`campaignId\` varchar(26) NOT NULL, \`clickId\` varchar(26) NOT NULL, \`attempt\` int NOT NULL, \`calledAt\` bigint NOT NULL, \`outcome\` varchar(16) NOT NULL, \`httpStatus\` int NULL, \`latencyMs\` int NOT NULL, \`error\` varchar(500) NULL, INDEX \`idx_verification_calls_campaign_time\` (\`campaignId\`, \`calledAt\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
    );
    await queryRunner.query(
      `ALTER TABLE \`clicks\` ADD \`verificationStatus\` varchar(16) NOT NULL DEFAULT 'none', ADD \`verificationAttempts\` int NOT NULL DEFAULT '0', ADD \`verificationError\` varchar(500) NULL, ADD \`verifiedAt\` bigint NULL`,
    );
    await queryRunner.query(`ALTER TABLE \`stats_hourly\` ADD \`verifiedClicks\` bigint NOT NULL DEFAULT '0'`);
    await queryRunner.query(`ALTER TABLE \`campaigns\` ADD \`verificationUrl\` varchar(2048) NULL, ADD \`verifiedClicks\` bigint NOT NULL DEFAULT '0'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE \`campaigns\` DROP COLUMN \`verifiedClicks\`, DROP COLUMN \`verificationUrl\``);
    await queryRunner.query(`ALTER TABLE \`stats_hourly\` DROP COLUMN \`verifiedClicks\``);
    await queryRunner.query(
      `ALTER TABLE \`clicks\` DROP COLUMN \`verifiedAt\`, DROP COLUMN \`verificationError\`, DROP COLUMN \`verificationAttempts\`, DROP COLUMN \`verificationStatus\``,
    );
    await queryRunner.query(`DROP TABLE \`verification_calls\``);
    await queryRunner.query(`DROP TABLE \`conversions\``);
  }
}
