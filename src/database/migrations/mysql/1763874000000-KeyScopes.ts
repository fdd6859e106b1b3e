import { MigrationInterface, QueryRunner } from 'typeorm';

/** Key scopes and allowed origins; no clear part of a key is kept (the prefix column goes); configured keys are marked. */
export class KeyScopes1763874000000 implements MigrationInterface {
  name = 'KeyScopes1763874000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE \`api_keys\` DROP COLUMN \`prefix\``);
    await queryRunner.query(`ALTER TABLE \`api_keys\` ADD \`scope\` varchar(10) NOT NULL DEFAULT 'full'`);
    await queryRunner.query(`ALTER TABLE \`api_keys\` ADD \`allowedOrigins\` text NULL`);
    await queryRunner.query(`ALTER TABLE \`api_keys\` ADD \`bootstrap\` varchar(10) NULL`);
    await queryRunner.query(`UPDATE \`api_keys\` SET \`bootstrap\` = 'admin' WHERE \`label\` = 'admin key from the environment'`);
    await queryRunner.query(`UPDATE \`api_keys\` SET \`bootstrap\` = 'sandbox' WHERE \`label\` = 'sandbox key from the environment'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE \`api_keys\` DROP COLUMN \`bootstrap\``);
    await queryRunner.query(`ALTER TABLE \`api_keys\` DROP COLUMN \`allowedOrigins\``);
    await queryRunner.query(`ALTER TABLE \`api_keys\` DROP COLUMN \`scope\``);
    // The clear prefixes are gone for good: old rows come back with an empty one.
    await queryRunner.query(`ALTER TABLE \`api_keys\` ADD \`prefix\` varchar(16) NOT NULL DEFAULT ''`);
  }
}
