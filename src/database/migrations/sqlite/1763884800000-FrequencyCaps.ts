import { MigrationInterface, QueryRunner } from 'typeorm';

export class FrequencyCaps1763884800000 implements MigrationInterface {
  name = 'FrequencyCaps1763884800000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "campaigns" ADD COLUMN "frequencyCapImpressions" integer`);
    await queryRunner.query(`ALTER TABLE "campaigns" ADD COLUMN "frequencyCapHours" integer`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "campaigns" DROP COLUMN "frequencyCapHours"`);
    await queryRunner.query(`ALTER TABLE "campaigns" DROP COLUMN "frequencyCapImpressions"`);
  }
}
