import { MigrationInterface, QueryRunner } from 'typeorm';

export class StatsWrites1763866800000 implements MigrationInterface {
  name = 'StatsWrites1763866800000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "stats_writes" ("id" varchar(26) PRIMARY KEY NOT NULL, "createdAt" bigint NOT NULL)`);
    await queryRunner.query(`CREATE INDEX "idx_stats_writes_created" ON "stats_writes" ("createdAt") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_stats_writes_created"`);
    await queryRunner.query(`DROP TABLE "stats_writes"`);
  }
}
