import { MigrationInterface, QueryRunner } from 'typeorm';

export class Exchange1763859600000 implements MigrationInterface {
  name = 'Exchange1763859600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "exchange_campaigns" ("id" varchar(26) PRIMARY KEY NOT NULL, "accountId" varchar(26) NOT NULL, "name" varchar(200) NOT NULL, "status" varchar(16) NOT NULL, "icon" varchar(2048) NOT NULL, "image" varchar(2048), "text" varchar(1000) NOT NULL, "actionType" varchar(32) NOT NULL, "destinationUrl" varchar(2048) NOT NULL, "targeting" text NOT NULL, "impressions" bigint NOT NULL DEFAULT (0), "impressionsSent" bigint NOT NULL DEFAULT (0), "clicksSent" bigint NOT NULL DEFAULT (0), "clicksReceived" bigint NOT NULL DEFAULT (0), "version" integer NOT NULL DEFAULT (1), "createdAt" bigint NOT NULL, "updatedAt" bigint NOT NULL)`,
    );
    await queryRunner.query(`CREATE INDEX "idx_exchange_campaigns_account" ON "exchange_campaigns" ("accountId", "id") `);
    await queryRunner.query(
      `CREATE TABLE "exchange_clicks" ("id" varchar(26) PRIMARY KEY NOT NULL, "inExchangeCampaignId" varchar(26) NOT NULL, "outExchangeCampaignId" varchar(26) NOT NULL, "inAccountId" varchar(26) NOT NULL, "outAccountId" varchar(26) NOT NULL, "messengerUserId" varchar(128) NOT NULL, "createdAt" bigint NOT NULL)`,
    );
    await queryRunner.query(`CREATE INDEX "idx_exchange_clicks_in_time" ON "exchange_clicks" ("inExchangeCampaignId", "createdAt") `);
    await queryRunner.query(`CREATE INDEX "idx_exchange_clicks_out_time" ON "exchange_clicks" ("outExchangeCampaignId", "createdAt") `);
    await queryRunner.query(
      `CREATE TABLE "exchange_stats_hourly" ("exchangeCampaignId" varchar(26) NOT NULL, "hour" bigint NOT NULL, "impressions" bigint NOT NULL DEFAULT (0), "impressionsSent" bigint NOT NULL DEFAULT (0), "clicksSent" bigint NOT NULL DEFAULT (0), "clicksReceived" bigint NOT NULL DEFAULT (0), PRIMARY KEY ("exchangeCampaignId", "hour"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "exchange_stats_hourly"`);
    await queryRunner.query(`DROP INDEX "idx_exchange_clicks_out_time"`);
    await queryRunner.query(`DROP INDEX "idx_exchange_clicks_in_time"`);
    await queryRunner.query(`DROP TABLE "exchange_clicks"`);
    await queryRunner.query(`DROP INDEX "idx_exchange_campaigns_account"`);
    await queryRunner.query(`DROP TABLE "exchange_campaigns"`);
  }
}
