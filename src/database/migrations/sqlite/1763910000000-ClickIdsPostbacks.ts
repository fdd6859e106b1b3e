import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Click ids and postbacks (docs/CONTRACT.md §20): the click id a click keeps, the transaction ids conversions are
 * deduplicated by, and the advertisers' postback tokens (made on their next `account/me`).
 */
export class ClickIdsPostbacks1763910000000 implements MigrationInterface {
  name = 'ClickIdsPostbacks1763910000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "clicks" ADD COLUMN "clickToken" varchar(40)`);
    await queryRunner.query(`CREATE INDEX "idx_clicks_click_token" ON "clicks" ("clickToken") `);
    await queryRunner.query(
      `CREATE TABLE "conversion_transactions" ("advertiserId" varchar(26) NOT NULL, "eventType" varchar(16) NOT NULL, "transactionId" varchar(128) NOT NULL, "createdAt" bigint NOT NULL, PRIMARY KEY ("advertiserId", "eventType", "transactionId"))`,
    );
    await queryRunner.query(`ALTER TABLE "accounts" ADD COLUMN "postbackToken" varchar(64)`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_accounts_postback_token" ON "accounts" ("postbackToken") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "uq_accounts_postback_token"`);
    await queryRunner.query(`ALTER TABLE "accounts" DROP COLUMN "postbackToken"`);
    await queryRunner.query(`DROP TABLE "conversion_transactions"`);
    await queryRunner.query(`DROP INDEX "idx_clicks_click_token"`);
    await queryRunner.query(`ALTER TABLE "clicks" DROP COLUMN "clickToken"`);
  }
}
