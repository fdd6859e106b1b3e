import { MigrationInterface, QueryRunner } from 'typeorm';

export class StatsWrites1763866800000 implements MigrationInterface {
  name = 'StatsWrites1763866800000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE \`stats_writes\` (\`id\` varchar(26) NOT NULL, \`createdAt\` bigint NOT NULL, INDEX \`idx_stats_writes_created\` (\`createdAt\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX \`idx_stats_writes_created\` ON \`stats_writes\``);
    await queryRunner.query(`DROP TABLE \`stats_writes\``);
  }
}
