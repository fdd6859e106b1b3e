import { MigrationInterface, QueryRunner } from 'typeorm';

/** `Idempotency-Key` records (docs/CONTRACT.md §20), kept 24 h and swept by IdempotencyService. */
export class IdempotencyKeys1763913600000 implements MigrationInterface {
  name = 'IdempotencyKeys1763913600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE \`idempotency_keys\` (\`accountId\` varchar(26) NOT NULL, \`idempotencyKey\` varchar(255) NOT NULL, \`requestHash\` varchar(64) NOT NULL, \`status\` int NULL, \`contentType\` varchar(100) NULL, \`body\` text NULL, \`createdAt\` bigint NOT NULL, \`expiresAt\` bigint NOT NULL, INDEX \`idx_idempotency_expires\` (\`expiresAt\`), PRIMARY KEY (\`accountId\`, \`idempotencyKey\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE \`idempotency_keys\``);
  }
}
