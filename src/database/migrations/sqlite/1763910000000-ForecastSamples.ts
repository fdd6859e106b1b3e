import { MigrationInterface, QueryRunner } from 'typeorm';

/** The forecast's sample of ad requests (src/forecast): contexts only, kept 7 days. */
export class ForecastSamples1763910000000 implements MigrationInterface {
  name = 'ForecastSamples1763910000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "forecast_samples" ("id" varchar(26) PRIMARY KEY NOT NULL, "sampledAt" bigint NOT NULL, "adBlockId" varchar(26) NOT NULL, "country" varchar(2), "language" varchar(8), "platform" varchar(8), "flags" integer NOT NULL, "adLimit" integer NOT NULL, "weightMilli" integer NOT NULL)`,
    );
    await queryRunner.query(`CREATE INDEX "idx_forecast_samples_time" ON "forecast_samples" ("sampledAt") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_forecast_samples_time"`);
    await queryRunner.query(`DROP TABLE "forecast_samples"`);
  }
}
