import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Click ids and postbacks (docs/CONTRACT.md §20): the click id a click keeps, the transaction ids conversions are
 * deduplicated by, and the advertisers' postback tokens (made on their next `account/me`).
 */
export class ClickIdsPostbacks1763910000000 implements MigrationInterface {
  name = 'ClickIdsPostbacks1763910000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE \`clicks\` ADD \`clickToken\` varchar(40) NULL, ADD INDEX \`idx_clicks_click_token\` (\`clickToken\`)`);
    await queryRunner.query(
      `CREATE TABLE \`conversion_transactions\` (\`advertiserId\` varchar(26) NOT NULL, \`eventType\` varchar(16) NOT NULL, \`transactionId\` varchar(128) NOT NULL, \`createdAt\` bigint NOT NULL, PRIMARY KEY (\`advertiserId\`, \`eventType\`, \`transactionId\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
    );
    await queryRunner.query(
      `ALTER TABLE \`accounts\` ADD \`postbackToken\` varchar(64) NULL, ADD UNIQUE INDEX \`uq_accounts_postback_token\` (\`postbackToken\`)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE \`accounts\` DROP INDEX \`uq_accounts_postback_token\`, DROP COLUMN \`postbackToken\``);
    await queryRunner.query(`DROP TABLE \`conversion_transactions\``);
    await queryRunner.query(`ALTER TABLE \`clicks\` DROP INDEX \`idx_clicks_click_token\`, DROP COLUMN \`clickToken\``);
  }
}
