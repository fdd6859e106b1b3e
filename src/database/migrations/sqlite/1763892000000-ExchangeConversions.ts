import { MigrationInterface, QueryRunner } from 'typeorm';

export class ExchangeConversions1763892000000 implements MigrationInterface {
  name = 'ExchangeConversions1763892000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "exchange_conversions" ("id" varchar(26) PRIMARY KEY NOT NULL, "partnerId" varchar(26) NOT NULL, "messengerUserId" varchar(128) NOT NULL, "exchangeClickId" varchar(26), "exchangeCampaignId" varchar(26), "createdAt" bigint NOT NULL)`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_exchange_conversions_click" ON "exchange_conversions" ("exchangeClickId") `);
    await queryRunner.query(`CREATE INDEX "idx_exchange_conversions_partner_time" ON "exchange_conversions" ("partnerId", "createdAt") `);
    await queryRunner.query(`CREATE INDEX "idx_exchange_clicks_in_account_user_time" ON "exchange_clicks" ("inAccountId", "messengerUserId", "createdAt") `);
    await queryRunner.query(`ALTER TABLE "exchange_campaigns" ADD COLUMN "conversions" bigint NOT NULL DEFAULT (0)`);
    await queryRunner.query(`ALTER TABLE "exchange_stats_hourly" ADD COLUMN "conversions" bigint NOT NULL DEFAULT (0)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "exchange_stats_hourly" DROP COLUMN "conversions"`);
    await queryRunner.query(`ALTER TABLE "exchange_campaigns" DROP COLUMN "conversions"`);
    await queryRunner.query(`DROP INDEX "idx_exchange_clicks_in_account_user_time"`);
    await queryRunner.query(`DROP INDEX "idx_exchange_conversions_partner_time"`);
    await queryRunner.query(`DROP INDEX "uq_exchange_conversions_click"`);
    await queryRunner.query(`DROP TABLE "exchange_conversions"`);
  }
}
