import { MigrationInterface, QueryRunner } from 'typeorm';

export class Init1763848800000 implements MigrationInterface {
  name = 'Init1763848800000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "accounts" ("id" varchar(26) PRIMARY KEY NOT NULL, "name" varchar(200) NOT NULL, "roles" varchar(100) NOT NULL, "webhookSecret" varchar(64) NOT NULL, "sandbox" boolean NOT NULL DEFAULT (0), "createdAt" bigint NOT NULL)`,
    );
    await queryRunner.query(
      `CREATE TABLE "api_keys" ("id" varchar(26) PRIMARY KEY NOT NULL, "accountId" varchar(26) NOT NULL, "keyHash" varchar(64) NOT NULL, "prefix" varchar(16) NOT NULL, "label" varchar(100) NOT NULL DEFAULT (''), "createdAt" bigint NOT NULL, "revokedAt" bigint)`,
    );
    await queryRunner.query(`CREATE INDEX "idx_api_keys_account" ON "api_keys" ("accountId") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_api_keys_hash" ON "api_keys" ("keyHash") `);
    await queryRunner.query(
      `CREATE TABLE "campaigns" ("id" varchar(26) PRIMARY KEY NOT NULL, "accountId" varchar(26) NOT NULL, "name" varchar(200) NOT NULL, "status" varchar(16) NOT NULL, "approved" boolean NOT NULL DEFAULT (1), "targeting" text NOT NULL, "dailyBudgetMicros" bigint NOT NULL, "totalBudgetMicros" bigint NOT NULL, "budgetStrategy" varchar(16) NOT NULL, "startTime" bigint NOT NULL, "endTime" bigint NOT NULL, "billingType" varchar(8) NOT NULL, "costPerMicros" bigint NOT NULL, "adFormat" varchar(16) NOT NULL, "popupImage" varchar(2048) NOT NULL, "icon" varchar(2048) NOT NULL, "actionType" varchar(32) NOT NULL, "destinationUrl" varchar(2048) NOT NULL, "text" varchar(1000) NOT NULL, "brandName" varchar(100) NOT NULL, "buttonText" varchar(50) NOT NULL, "impressions" bigint NOT NULL DEFAULT (0), "clicks" bigint NOT NULL DEFAULT (0), "conversions" bigint NOT NULL DEFAULT (0), "spentMicros" bigint NOT NULL DEFAULT (0), "daySpentMicros" bigint NOT NULL DEFAULT (0), "spentDay" varchar(10) NOT NULL DEFAULT (''), "createdAt" bigint NOT NULL, "updatedAt" bigint NOT NULL)`,
    );
    await queryRunner.query(`CREATE INDEX "idx_campaigns_status" ON "campaigns" ("status") `);
    await queryRunner.query(`CREATE INDEX "idx_campaigns_account" ON "campaigns" ("accountId", "id") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_campaigns_account"`);
    await queryRunner.query(`DROP INDEX "idx_campaigns_status"`);
    await queryRunner.query(`DROP TABLE "campaigns"`);
    await queryRunner.query(`DROP INDEX "uq_api_keys_hash"`);
    await queryRunner.query(`DROP INDEX "idx_api_keys_account"`);
    await queryRunner.query(`DROP TABLE "api_keys"`);
    await queryRunner.query(`DROP TABLE "accounts"`);
  }
}
