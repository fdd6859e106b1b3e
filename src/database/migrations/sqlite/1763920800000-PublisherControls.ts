import { MigrationInterface, QueryRunner } from 'typeorm';

/** Ad blocks' floor prices and blocked categories and domains; campaigns' category (docs/CONTRACT.md §18). */
export class PublisherControls1763920800000 implements MigrationInterface {
  name = 'PublisherControls1763920800000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "ad_blocks" ADD COLUMN "floorCpmMicros" bigint NOT NULL DEFAULT (0)`);
    await queryRunner.query(`ALTER TABLE "ad_blocks" ADD COLUMN "floorCpcMicros" bigint NOT NULL DEFAULT (0)`);
    await queryRunner.query(`ALTER TABLE "ad_blocks" ADD COLUMN "blockedCategories" text`);
    await queryRunner.query(`ALTER TABLE "ad_blocks" ADD COLUMN "blockedDomains" text`);
    await queryRunner.query(`ALTER TABLE "campaigns" ADD COLUMN "category" varchar(16) NOT NULL DEFAULT ('other')`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "campaigns" DROP COLUMN "category"`);
    await queryRunner.query(`ALTER TABLE "ad_blocks" DROP COLUMN "blockedDomains"`);
    await queryRunner.query(`ALTER TABLE "ad_blocks" DROP COLUMN "blockedCategories"`);
    await queryRunner.query(`ALTER TABLE "ad_blocks" DROP COLUMN "floorCpcMicros"`);
    await queryRunner.query(`ALTER TABLE "ad_blocks" DROP COLUMN "floorCpmMicros"`);
  }
}
