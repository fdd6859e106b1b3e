import { MigrationInterface, QueryRunner } from 'typeorm';

/** Ad blocks' floor prices and blocked categories and domains; campaigns' category (docs/CONTRACT.md §18). */
export class PublisherControls1763920800000 implements MigrationInterface {
  name = 'PublisherControls1763920800000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE \`ad_blocks\` ADD \`floorCpmMicros\` bigint NOT NULL DEFAULT '0', ADD \`floorCpcMicros\` bigint NOT NULL DEFAULT '0', ADD \`blockedCategories\` text NULL, ADD \`blockedDomains\` text NULL`,
    );
    await queryRunner.query(`ALTER TABLE \`campaigns\` ADD \`category\` varchar(16) NOT NULL DEFAULT 'other'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE \`campaigns\` DROP COLUMN \`category\``);
    await queryRunner.query(
      `ALTER TABLE \`ad_blocks\` DROP COLUMN \`blockedDomains\`, DROP COLUMN \`blockedCategories\`, DROP COLUMN \`floorCpcMicros\`, DROP COLUMN \`floorCpmMicros\``,
    );
  }
}
