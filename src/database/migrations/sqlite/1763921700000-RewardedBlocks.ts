import { MigrationInterface, QueryRunner } from 'typeorm';

/** Ad blocks' rewarded-ad settings: `format`, `rewardUrl`, `minViewMs`, `dailyRewardCap` (docs/REWARDED_ADS.md). */
export class RewardedBlocks1763921700000 implements MigrationInterface {
  name = 'RewardedBlocks1763921700000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "ad_blocks" ADD COLUMN "format" varchar(16) NOT NULL DEFAULT ('banner')`);
    await queryRunner.query(`ALTER TABLE "ad_blocks" ADD COLUMN "rewardUrl" varchar(2048)`);
    await queryRunner.query(`ALTER TABLE "ad_blocks" ADD COLUMN "minViewMs" integer NOT NULL DEFAULT (10000)`);
    await queryRunner.query(`ALTER TABLE "ad_blocks" ADD COLUMN "dailyRewardCap" integer NOT NULL DEFAULT (20)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const column of ['dailyRewardCap', 'minViewMs', 'rewardUrl', 'format']) {
      await queryRunner.query(`ALTER TABLE "ad_blocks" DROP COLUMN "${column}"`);
    }
  }
}
