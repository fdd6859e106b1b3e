import { MigrationInterface, QueryRunner } from 'typeorm';

/** The forecast's sample of ad requests (src/forecast): contexts only, kept 7 days. */
export class ForecastSamples1763910000000 implements MigrationInterface {
  name = 'ForecastSamples1763910000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE \`forecast_samples\` (\`id\` varchar(26) NOT NULL, \`sampledAt\` bigint NOT NULL, \`adBlockId\` varchar(26) NOT NULL, \`country\` varchar(2) NULL, \`language\` varchar(8) NULL, \`platform\` varchar(8) NULL, \`flags\` int NOT NULL, \`adLimit\` int NOT NULL, \`weightMilli\` int NOT NULL, INDEX \`idx_forecast_samples_time\` (\`sampledAt\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE \`forecast_samples\``);
  }
}
