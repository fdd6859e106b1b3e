import { MigrationInterface, QueryRunner } from 'typeorm';

/** Reward callbacks (docs/REWARDED_ADS.md): their delivery log, the daily cap's counters, the previous webhook secret. */
export class RewardDeliveries1763921900000 implements MigrationInterface {
  name = 'RewardDeliveries1763921900000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "reward_deliveries" ("eventId" varchar(64) PRIMARY KEY NOT NULL, "adBlockId" varchar(26) NOT NULL, "publisherId" varchar(26) NOT NULL, ` +
        `"messengerUserId" varchar(128) NOT NULL, "campaignId" varchar(26) NOT NULL, "adId" varchar(64) NOT NULL, "status" varchar(16) NOT NULL, ` +
        `"attempts" integer NOT NULL DEFAULT (0), "lastStatusCode" integer, "lastError" varchar(500), "createdAt" bigint NOT NULL, "deliveredAt" bigint, ` +
        `"replays" integer NOT NULL DEFAULT (0))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_reward_deliveries_block" ON "reward_deliveries" ("adBlockId", "createdAt")`);
    await queryRunner.query(`CREATE INDEX "idx_reward_deliveries_status" ON "reward_deliveries" ("status", "createdAt")`);
    await queryRunner.query(
      `CREATE TABLE "reward_day_counts" ("adBlockId" varchar(26) NOT NULL, "messengerUserId" varchar(128) NOT NULL, "day" varchar(10) NOT NULL, ` +
        `"rewards" integer NOT NULL DEFAULT (0), PRIMARY KEY ("adBlockId", "messengerUserId", "day"))`,
    );
    await queryRunner.query(`ALTER TABLE "accounts" ADD COLUMN "previousWebhookSecret" varchar(64)`);
    await queryRunner.query(`ALTER TABLE "accounts" ADD COLUMN "webhookSecretRotatedAt" bigint`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "accounts" DROP COLUMN "webhookSecretRotatedAt"`);
    await queryRunner.query(`ALTER TABLE "accounts" DROP COLUMN "previousWebhookSecret"`);
    await queryRunner.query(`DROP TABLE "reward_day_counts"`);
    await queryRunner.query(`DROP INDEX "idx_reward_deliveries_status"`);
    await queryRunner.query(`DROP INDEX "idx_reward_deliveries_block"`);
    await queryRunner.query(`DROP TABLE "reward_deliveries"`);
  }
}
