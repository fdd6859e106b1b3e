import { MigrationInterface, QueryRunner } from 'typeorm';

export class ClickVerificationIndex1763870400000 implements MigrationInterface {
  name = 'ClickVerificationIndex1763870400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "idx_clicks_verification_time" ON "clicks" ("verificationStatus", "createdAt") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_clicks_verification_time"`);
  }
}
