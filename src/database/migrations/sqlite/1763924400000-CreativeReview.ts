import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Creative review with revisions (docs/CONTRACT.md §18): each campaign's review status, note, pending creative and
 * since when it waits. Campaigns not approved yet (and not ended) wait for review since their creation.
 */
export class CreativeReview1763924400000 implements MigrationInterface {
  name = 'CreativeReview1763924400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "campaigns" ADD COLUMN "reviewStatus" varchar(16) NOT NULL DEFAULT ('approved')`);
    await queryRunner.query(`ALTER TABLE "campaigns" ADD COLUMN "reviewNote" varchar(1000) NOT NULL DEFAULT ('')`);
    await queryRunner.query(`ALTER TABLE "campaigns" ADD COLUMN "pendingAd" text`);
    await queryRunner.query(`ALTER TABLE "campaigns" ADD COLUMN "reviewRequestedAt" bigint NOT NULL DEFAULT (0)`);
    await queryRunner.query(
      `UPDATE "campaigns" SET "reviewStatus" = 'pending', "reviewRequestedAt" = "createdAt" WHERE "approved" = 0 AND "status" <> 'ended'`,
    );
    await queryRunner.query(`CREATE INDEX "idx_campaigns_review" ON "campaigns" ("reviewStatus", "reviewRequestedAt") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_campaigns_review"`);
    await queryRunner.query(`ALTER TABLE "campaigns" DROP COLUMN "reviewRequestedAt"`);
    await queryRunner.query(`ALTER TABLE "campaigns" DROP COLUMN "pendingAd"`);
    await queryRunner.query(`ALTER TABLE "campaigns" DROP COLUMN "reviewNote"`);
    await queryRunner.query(`ALTER TABLE "campaigns" DROP COLUMN "reviewStatus"`);
  }
}
