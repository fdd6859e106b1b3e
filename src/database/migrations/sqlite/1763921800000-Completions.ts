import { MigrationInterface, QueryRunner } from 'typeorm';

/** `completions` and `rewardsCapped`: completed views and rewards past a block's daily cap (docs/REWARDED_ADS.md). */
export class Completions1763921800000 implements MigrationInterface {
  name = 'Completions1763921800000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['stats_hourly', 'campaigns', 'ad_blocks']) {
      for (const column of ['completions', 'rewardsCapped']) {
        await queryRunner.query(`ALTER TABLE "${table}" ADD COLUMN "${column}" bigint NOT NULL DEFAULT (0)`);
      }
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['ad_blocks', 'campaigns', 'stats_hourly']) {
      for (const column of ['rewardsCapped', 'completions']) {
        await queryRunner.query(`ALTER TABLE "${table}" DROP COLUMN "${column}"`);
      }
    }
  }
}
