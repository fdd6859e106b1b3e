import { MigrationInterface, QueryRunner } from 'typeorm';

export class Serving1763852400000 implements MigrationInterface {
  name = 'Serving1763852400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "ad_blocks" ("id" varchar(26) PRIMARY KEY NOT NULL, "accountId" varchar(26) NOT NULL, "name" varchar(200) NOT NULL, "impressions" bigint NOT NULL DEFAULT (0), "clicks" bigint NOT NULL DEFAULT (0), "earningsMicros" bigint NOT NULL DEFAULT (0), "createdAt" bigint NOT NULL)`,
    );
    await queryRunner.query(`CREATE INDEX "idx_ad_blocks_account" ON "ad_blocks" ("accountId", "id") `);
    await queryRunner.query(
      `CREATE TABLE "clicks" ("id" varchar(26) PRIMARY KEY NOT NULL, "campaignId" varchar(26) NOT NULL, "advertiserId" varchar(26) NOT NULL, "adBlockId" varchar(26) NOT NULL, "adId" varchar(40) NOT NULL, "messengerUserId" varchar(128) NOT NULL, "costMicros" bigint NOT NULL DEFAULT (0), "earningsMicros" bigint NOT NULL DEFAULT (0), "createdAt" bigint NOT NULL)`,
    );
    await queryRunner.query(`CREATE INDEX "idx_clicks_user_time" ON "clicks" ("messengerUserId", "createdAt") `);
    await queryRunner.query(`CREATE INDEX "idx_clicks_campaign_time" ON "clicks" ("campaignId", "createdAt") `);
    await queryRunner.query(
      `CREATE TABLE "stats_hourly" ("campaignId" varchar(26) NOT NULL, "adBlockId" varchar(26) NOT NULL, "hour" bigint NOT NULL, "impressions" bigint NOT NULL DEFAULT (0), "clicks" bigint NOT NULL DEFAULT (0), "conversions" bigint NOT NULL DEFAULT (0), "spendMicros" bigint NOT NULL DEFAULT (0), "earningsMicros" bigint NOT NULL DEFAULT (0), PRIMARY KEY ("campaignId", "adBlockId", "hour"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_stats_block_hour" ON "stats_hourly" ("adBlockId", "hour") `);
    await queryRunner.query(`DROP INDEX "idx_campaigns_account"`);
    await queryRunner.query(`DROP INDEX "idx_campaigns_status"`);
    await queryRunner.query(
      `CREATE TABLE "temporary_campaigns" ("id" varchar(26) PRIMARY KEY NOT NULL, "accountId" varchar(26) NOT NULL, "name" varchar(200) NOT NULL, "status" varchar(16) NOT NULL, "approved" boolean NOT NULL DEFAULT (1), "targeting" text NOT NULL, "dailyBudgetMicros" bigint NOT NULL, "totalBudgetMicros" bigint NOT NULL, "budgetStrategy" varchar(16) NOT NULL, "startTime" bigint NOT NULL, "endTime" bigint NOT NULL, "billingType" varchar(8) NOT NULL, "costPerMicros" bigint NOT NULL, "adFormat" varchar(16) NOT NULL, "popupImage" varchar(2048) NOT NULL, "icon" varchar(2048) NOT NULL, "actionType" varchar(32) NOT NULL, "destinationUrl" varchar(2048) NOT NULL, "text" varchar(1000) NOT NULL, "brandName" varchar(100) NOT NULL, "buttonText" varchar(50) NOT NULL, "impressions" bigint NOT NULL DEFAULT (0), "clicks" bigint NOT NULL DEFAULT (0), "conversions" bigint NOT NULL DEFAULT (0), "spentMicros" bigint NOT NULL DEFAULT (0), "daySpentMicros" bigint NOT NULL DEFAULT (0), "spentDay" varchar(10) NOT NULL DEFAULT (''), "createdAt" bigint NOT NULL, "updatedAt" bigint NOT NULL, "version" integer NOT NULL DEFAULT (1))`,
    );
    await queryRunner.query(
      `INSERT INTO "temporary_campaigns"("id", "accountId", "name", "status", "approved", "targeting", "dailyBudgetMicros", "totalBudgetMicros", "budgetStrategy", "startTime", "endTime", "billingType", "costPerMicros", "adFormat", "popupImage", "icon", "actionType", "destinationUrl", "text", "brandName", "buttonText", "impressions", "clicks", "conversions", "spentMicros", "daySpentMicros", "spentDay", "createdAt", "updatedAt") SELECT "id", "accountId", "name", "status", "approved", "targeting", "dailyBudgetMicros", "totalBudgetMicros", "budgetStrategy", "startTime", "endTime", "billingType", "costPerMicros", "adFormat", "popupImage", "icon", "actionType", "destinationUrl", "text", "brandName", "buttonText", "impressions", "clicks", "conversions", "spentMicros", "daySpentMicros", "spentDay", "createdAt", "updatedAt" FROM "campaigns"`,
    );
    await queryRunner.query(`DROP TABLE "campaigns"`);
    await queryRunner.query(`ALTER TABLE "temporary_campaigns" RENAME TO "campaigns"`);
    await queryRunner.query(`CREATE INDEX "idx_campaigns_account" ON "campaigns" ("accountId", "id") `);
    await queryRunner.query(`CREATE INDEX "idx_campaigns_status" ON "campaigns" ("status") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_campaigns_status"`);
    await queryRunner.query(`DROP INDEX "idx_campaigns_account"`);
    await queryRunner.query(`ALTER TABLE "campaigns" RENAME TO "temporary_campaigns"`);
    await queryRunner.query(
      `CREATE TABLE "campaigns" ("id" varchar(26) PRIMARY KEY NOT NULL, "accountId" varchar(26) NOT NULL, "name" varchar(200) NOT NULL, "status" varchar(16) NOT NULL, "approved" boolean NOT NULL DEFAULT (1), "targeting" text NOT NULL, "dailyBudgetMicros" bigint NOT NULL, "totalBudgetMicros" bigint NOT NULL, "budgetStrategy" varchar(16) NOT NULL, "startTime" bigint NOT NULL, "endTime" bigint NOT NULL, "billingType" varchar(8) NOT NULL, "costPerMicros" bigint NOT NULL, "adFormat" varchar(16) NOT NULL, "popupImage" varchar(2048) NOT NULL, "icon" varchar(2048) NOT NULL, "actionType" varchar(32) NOT NULL, "destinationUrl" varchar(2048) NOT NULL, "text" varchar(1000) NOT NULL, "brandName" varchar(100) NOT NULL, "buttonText" varchar(50) NOT NULL, "impressions" bigint NOT NULL DEFAULT (0), "clicks" bigint NOT NULL DEFAULT (0), "conversions" bigint NOT NULL DEFAULT (0), "spentMicros" bigint NOT NULL DEFAULT (0), "daySpentMicros" bigint NOT NULL DEFAULT (0), "spentDay" varchar(10) NOT NULL DEFAULT (''), "createdAt" bigint NOT NULL, "updatedAt" bigint NOT NULL)`,
    );
    await queryRunner.query(
      `INSERT INTO "campaigns"("id", "accountId", "name", "status", "approved", "targeting", "dailyBudgetMicros", "totalBudgetMicros", "budgetStrategy", "startTime", "endTime", "billingType", "costPerMicros", "adFormat", "popupImage", "icon", "actionType", "destinationUrl", "text", "brandName", "buttonText", "impressions", "clicks", "conversions", "spentMicros", "daySpentMicros", "spentDay", "createdAt", "updatedAt") SELECT "id", "accountId", "name", "status", "approved", "targeting", "dailyBudgetMicros", "totalBudgetMicros", "budgetStrategy", "startTime", "endTime", "billingType", "costPerMicros", "adFormat", "popupImage", "icon", "actionType", "destinationUrl", "text", "brandName", "buttonText", "impressions", "clicks", "conversions", "spentMicros", "daySpentMicros", "spentDay", "createdAt", "updatedAt" FROM "temporary_campaigns"`,
    );
    await queryRunner.query(`DROP TABLE "temporary_campaigns"`);
    await queryRunner.query(`CREATE INDEX "idx_campaigns_status" ON "campaigns" ("status") `);
    await queryRunner.query(`CREATE INDEX "idx_campaigns_account" ON "campaigns" ("accountId", "id") `);
    await queryRunner.query(`DROP INDEX "idx_stats_block_hour"`);
    await queryRunner.query(`DROP TABLE "stats_hourly"`);
    await queryRunner.query(`DROP INDEX "idx_clicks_campaign_time"`);
    await queryRunner.query(`DROP INDEX "idx_clicks_user_time"`);
    await queryRunner.query(`DROP TABLE "clicks"`);
    await queryRunner.query(`DROP INDEX "idx_ad_blocks_account"`);
    await queryRunner.query(`DROP TABLE "ad_blocks"`);
  }
}
