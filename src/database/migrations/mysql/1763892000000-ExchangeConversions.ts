import { MigrationInterface, QueryRunner } from 'typeorm';

export class ExchangeConversions1763892000000 implements MigrationInterface {
  name = 'ExchangeConversions1763892000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE \`exchange_conversions\` (\`id\` varchar(26) NOT NULL, \`partnerId\` varchar(26) NOT NULL, \`messengerUserId\` varchar(128) NOT NULL, \`exchangeClickId\` varchar(26) NULL, \`exchangeCampaignId\` varchar(26) NULL, \`createdAt\` bigint NOT NULL, INDEX \`idx_exchange_conversions_partner_time\` (\`partnerId\`, \`createdAt\`), UNIQUE INDEX \`uq_exchange_conversions_click\` (\`exchangeClickId\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
    );
    await queryRunner.query(
      `CREATE INDEX \`idx_exchange_clicks_in_account_user_time\` ON \`exchange_clicks\` (\`inAccountId\`, \`messengerUserId\`, \`createdAt\`)`,
    );
    await queryRunner.query(`ALTER TABLE \`exchange_campaigns\` ADD \`conversions\` bigint NOT NULL DEFAULT '0'`);
    await queryRunner.query(`ALTER TABLE \`exchange_stats_hourly\` ADD \`conversions\` bigint NOT NULL DEFAULT '0'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE \`exchange_stats_hourly\` DROP COLUMN \`conversions\``);
    await queryRunner.query(`ALTER TABLE \`exchange_campaigns\` DROP COLUMN \`conversions\``);
    await queryRunner.query(`DROP INDEX \`idx_exchange_clicks_in_account_user_time\` ON \`exchange_clicks\``);
    await queryRunner.query(`DROP TABLE \`exchange_conversions\``);
  }
}
