import { MigrationInterface, QueryRunner } from 'typeorm';

export class Serving1763852400000 implements MigrationInterface {
  name = 'Serving1763852400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE \`ad_blocks\` (\`id\` varchar(26) NOT NULL, \`accountId\` varchar(26) NOT NULL, \`name\` varchar(200) NOT NULL, \`impressions\` bigint NOT NULL DEFAULT '0', \`clicks\` bigint NOT NULL DEFAULT '0', \`earningsMicros\` bigint NOT NULL DEFAULT '0', \`createdAt\` bigint NOT NULL, INDEX \`idx_ad_blocks_account\` (\`accountId\`, \`id\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
    );
    await queryRunner.query(
      `CREATE TABLE \`clicks\` (\`id\` varchar(26) NOT NULL, \`campaignId\` varchar(26) NOT NULL, \`advertiserId\` varchar(26) NOT NULL, \`adBlockId\` varchar(26) NOT NULL, \`adId\` varchar(40) NOT NULL, \`messengerUserId\` varchar(128) NOT NULL, \`costMicros\` bigint NOT NULL DEFAULT '0', \`earningsMicros\` bigint NOT NULL DEFAULT '0', \`createdAt\` bigint NOT NULL, INDEX \`idx_clicks_user_time\` (\`messengerUserId\`, \`createdAt\`), INDEX \`idx_clicks_campaign_time\` (\`campaignId\`, \`createdAt\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
    );
    await queryRunner.query(
      `CREATE TABLE \`stats_hourly\` (\`campaignId\` varchar(26) NOT NULL, \`adBlockId\` varchar(26) NOT NULL, \`hour\` bigint NOT NULL, \`impressions\` bigint NOT NULL DEFAULT '0', \`clicks\` bigint NOT NULL DEFAULT '0', \`conversions\` bigint NOT NULL DEFAULT '0', \`spendMicros\` bigint NOT NULL DEFAULT '0', \`earningsMicros\` bigint NOT NULL DEFAULT '0', INDEX \`idx_stats_block_hour\` (\`adBlockId\`, \`hour\`), PRIMARY KEY (\`campaignId\`, \`adBlockId\`, \`hour\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
    );
    await queryRunner.query(`ALTER TABLE \`campaigns\` ADD \`version\` int NOT NULL DEFAULT '1'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE \`campaigns\` DROP COLUMN \`version\``);
    await queryRunner.query(`DROP INDEX \`idx_stats_block_hour\` ON \`stats_hourly\``);
    await queryRunner.query(`DROP TABLE \`stats_hourly\``);
    await queryRunner.query(`DROP INDEX \`idx_clicks_campaign_time\` ON \`clicks\``);
    await queryRunner.query(`DROP INDEX \`idx_clicks_user_time\` ON \`clicks\``);
    await queryRunner.query(`DROP TABLE \`clicks\``);
    await queryRunner.query(`DROP INDEX \`idx_ad_blocks_account\` ON \`ad_blocks\``);
    await queryRunner.query(`DROP TABLE \`ad_blocks\``);
  }
}
