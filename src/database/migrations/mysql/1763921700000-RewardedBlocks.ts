import { MigrationInterface, QueryRunner } from 'typeorm';

/** Ad blocks' rewarded-ad settings: `format`, `rewardUrl`, `minViewMs`, `dailyRewardCap` (docs/REWARDED_ADS.md). */
export class RewardedBlocks1763921700000 implements MigrationInterface {
  name = 'RewardedBlocks1763921700000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      "ALTER TABLE `ad_blocks` ADD `format` varchar(16) NOT NULL DEFAULT 'banner', ADD `rewardUrl` varchar(2048) NULL, " +
        "ADD `minViewMs` int NOT NULL DEFAULT '10000', ADD `dailyRewardCap` int NOT NULL DEFAULT '20'",
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE `ad_blocks` DROP COLUMN `dailyRewardCap`, DROP COLUMN `minViewMs`, DROP COLUMN `rewardUrl`, DROP COLUMN `format`');
  }
}
