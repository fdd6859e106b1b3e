import { MigrationInterface, QueryRunner } from 'typeorm';

export class Profiles1763856000000 implements MigrationInterface {
  name = 'Profiles1763856000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "profiles" ("messengerUserId" varchar(128) PRIMARY KEY NOT NULL, "ipAddress" varchar(64), "walletAddress" varchar(128), "walletClassify" varchar(16), "isPremium" boolean, "isHighValue" boolean, "walletHasBalance" boolean, "language" varchar(8), "lastFields" integer NOT NULL DEFAULT (0), "updatedAt" bigint NOT NULL)`,
    );
    await queryRunner.query(
      `CREATE TABLE "profile_batches" ("id" varchar(26) PRIMARY KEY NOT NULL, "accountId" varchar(26) NOT NULL, "source" varchar(8) NOT NULL, "status" varchar(16) NOT NULL, "total" integer NOT NULL, "processed" integer NOT NULL DEFAULT (0), "attempts" integer NOT NULL DEFAULT (0), "error" varchar(500), "records" text, "createdAt" bigint NOT NULL, "updatedAt" bigint NOT NULL, "finishedAt" bigint)`,
    );
    await queryRunner.query(`CREATE INDEX "idx_profile_batches_status" ON "profile_batches" ("status", "createdAt") `);
    await queryRunner.query(`CREATE INDEX "idx_profile_batches_account" ON "profile_batches" ("accountId", "createdAt") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_profile_batches_account"`);
    await queryRunner.query(`DROP INDEX "idx_profile_batches_status"`);
    await queryRunner.query(`DROP TABLE "profile_batches"`);
    await queryRunner.query(`DROP TABLE "profiles"`);
  }
}
