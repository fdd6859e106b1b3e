import { MigrationInterface, QueryRunner } from 'typeorm';

export class Conversions1763863200000 implements MigrationInterface {
  name = 'Conversions1763863200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "conversions" ("id" varchar(26) PRIMARY KEY NOT NULL, "advertiserId" varchar(26) NOT NULL, "messengerUserId" varchar(128) NOT NULL, "clickId" varchar(26), "campaignId" varchar(26), "createdAt" bigint NOT NULL)`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_conversions_click" ON "conversions" ("clickId") `);
    await queryRunner.query(`CREATE INDEX "idx_conversions_advertiser_time" ON "conversions" ("advertiserId", "createdAt") `);
    await queryRunner.query(
      `CREATE TABLE "verification_calls" ("id" varchar(26) PRIMARY KEY NOT NULL, "campaignId" varchar(26) NOT NULL, "clickId" varchar(26) NOT NULL, "attempt" integer NOT NULL, "calledAt" bigint NOT NULL, "outcome" varchar(16) NOT NULL, "httpStatus" integer, "latencyMs" integer NOT NULL, "error" varchar(500))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_verification_calls_campaign_time" ON "verification_calls" ("campaignId", "calledAt") `);
    await queryRunner.query(`ALTER TABLE "clicks" ADD COLUMN "verificationStatus" varchar(16) NOT NULL DEFAULT ('none')`);
    await queryRunner.query(`ALTER TABLE "clicks" ADD COLUMN "verificationAttempts" integer NOT NULL DEFAULT (0)`);
    await queryRunner.query(`ALTER TABLE "clicks" ADD COLUMN "verificationError" varchar(500)`);
    await queryRunner.query(`ALTER TABLE "clicks" ADD COLUMN "verifiedAt" bigint`);
    await queryRunner.query(`ALTER TABLE "stats_hourly" ADD COLUMN "verifiedClicks" bigint NOT NULL DEFAULT (0)`);
    await queryRunner.query(`ALTER TABLE "campaigns" ADD COLUMN "verificationUrl" varchar(2048)`);
    await queryRunner.query(`ALTER TABLE "campaigns" ADD COLUMN "verifiedClicks" bigint NOT NULL DEFAULT (0)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "campaigns" DROP COLUMN "verifiedClicks"`);
    await queryRunner.query(`ALTER TABLE "campaigns" DROP COLUMN "verificationUrl"`);
    await queryRunner.query(`ALTER TABLE "stats_hourly" DROP COLUMN "verifiedClicks"`);
    await queryRunner.query(`ALTER TABLE "clicks" DROP COLUMN "verifiedAt"`);
    await queryRunner.query(`ALTER TABLE "clicks" DROP COLUMN "verificationError"`);
    await queryRunner.query(`ALTER TABLE "clicks" DROP COLUMN "verificationAttempts"`);
    await queryRunner.query(`ALTER TABLE "clicks" DROP COLUMN "verificationStatus"`);
    await queryRunner.query(`DROP INDEX "idx_verification_calls_campaign_time"`);
    await queryRunner.query(`DROP TABLE "verification_calls"`);
    await queryRunner.query(`DROP INDEX "idx_conversions_advertiser_time"`);
    await queryRunner.query(`DROP INDEX "uq_conversions_click"`);
    await queryRunner.query(`DROP TABLE "conversions"`);
  }
}
