import { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts' time zones (src/common/time-zone.ts): every existing account keeps UTC days. */
export class AccountTimeZones1763906400000 implements MigrationInterface {
  name = 'AccountTimeZones1763906400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "accounts" ADD "timeZone" varchar(64) NOT NULL DEFAULT 'UTC'`);
    await queryRunner.query(`ALTER TABLE "accounts" ADD "nextTimeZone" varchar(64) NULL`);
    await queryRunner.query(`ALTER TABLE "accounts" ADD "timeZoneChangesAt" bigint NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "accounts" DROP COLUMN "timeZoneChangesAt"`);
    await queryRunner.query(`ALTER TABLE "accounts" DROP COLUMN "nextTimeZone"`);
    await queryRunner.query(`ALTER TABLE "accounts" DROP COLUMN "timeZone"`);
  }
}
