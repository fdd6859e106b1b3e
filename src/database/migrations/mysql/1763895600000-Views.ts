import { MigrationInterface, QueryRunner } from 'typeorm';

/** `views`: the ton-ai-sdk's `impression` event, at most one per served impression, never billed. */
export class Views1763895600000 implements MigrationInterface {
  name = 'Views1763895600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['stats_hourly', 'campaigns', 'ad_blocks']) {
      await queryRunner.query(`ALTER TABLE \`${table}\` ADD \`views\` bigint NOT NULL DEFAULT '0'`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['ad_blocks', 'campaigns', 'stats_hourly']) {
      await queryRunner.query(`ALTER TABLE \`${table}\` DROP COLUMN \`views\``);
    }
  }
}
