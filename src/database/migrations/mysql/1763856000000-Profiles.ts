import { MigrationInterface, QueryRunner } from 'typeorm';

export class Profiles1763856000000 implements MigrationInterface {
  name = 'Profiles1763856000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE \`profiles\` (\`messengerUserId\` varchar(128) COLLATE utf8mb4_bin NOT NULL, \`ipAddress\` varchar(64) NULL, \`walletAddress\` varchar(128) NULL, \`walletClassify\` varchar(16) NULL, \`isPremium\` tinyint NULL, \`isHighValue\` tinyint NULL, \`walletHasBalance\` tinyint NULL, \`language\` varchar(8) NULL, \`lastFields\` int NOT NULL DEFAULT '0', \`updatedAt\` bigint NOT NULL, PRIMARY KEY (\`messengerUserId\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
    );
    await queryRunner.query(
      `CREATE TABLE \`profile_batches\` (\`id\` varchar(26) NOT NULL, \`accountId\` varchar(26) NOT NULL, \`source\` varchar(8) NOT NULL, \`status\` varchar(16) NOT NULL, \`total\` int NOT NULL, \`processed\` int NOT NULL DEFAULT '0', \`attempts\` int NOT NULL DEFAULT '0', \`error\` varchar(500) NULL, \`records\` mediumtext NULL, \`createdAt\` bigint NOT NULL, \`updatedAt\` bigint NOT NULL, \`finishedAt\` bigint NULL, INDEX \`idx_profile_batches_status\` (\`status\`, \`createdAt\`), INDEX \`idx_profile_batches_account\` (\`accountId\`, \`createdAt\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE \`profile_batches\``);
    await queryRunner.query(`DROP TABLE \`profiles\``);
  }
}
