import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Profiles per publisher (keyed by account and messengerUserId) and ad blocks' requireSignedViewer.
 *
 * The former profiles were global and do not record which batch wrote them (a done batch drops its records). When
 * every stored batch came from one account, all of them are that account's and move over. Otherwise they cannot be
 * attributed: they are kept apart in `profiles_unattributed`, which nothing serves from, rather than given to a
 * publisher that may not have uploaded them. Batches still waiting keep their account and apply per publisher.
 */
export class PublisherData1763877600000 implements MigrationInterface {
  name = 'PublisherData1763877600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE \`ad_blocks\` ADD \`requireSignedViewer\` tinyint NOT NULL DEFAULT 0`);
    await queryRunner.query(
      `CREATE TABLE \`profiles_per_publisher\` (\`accountId\` varchar(26) NOT NULL, \`messengerUserId\` varchar(128) COLLATE utf8mb4_bin NOT NULL, \`ipAddress\` varchar(64) NULL, \`walletAddress\` varchar(128) NULL, \`walletClassify\` varchar(16) NULL, \`isPremium\` tinyint NULL, \`isHighValue\` tinyint NULL, \`walletHasBalance\` tinyint NULL, \`language\` varchar(8) NULL, \`lastFields\` int NOT NULL DEFAULT '0', \`updatedAt\` bigint NOT NULL, PRIMARY KEY (\`accountId\`, \`messengerUserId\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
    );
    const [{ n }] = await queryRunner.query(`SELECT COUNT(*) AS n FROM \`profiles\``);
    const uploaders: { accountId: string }[] = await queryRunner.query(`SELECT DISTINCT \`accountId\` FROM \`profile_batches\` WHERE \`status\` <> 'staged'`);
    if (Number(n) > 0 && uploaders.length === 1) {
      await queryRunner.query(
        `INSERT INTO \`profiles_per_publisher\` (\`accountId\`, \`messengerUserId\`, \`ipAddress\`, \`walletAddress\`, \`walletClassify\`, \`isPremium\`, \`isHighValue\`, \`walletHasBalance\`, \`language\`, \`lastFields\`, \`updatedAt\`) SELECT ?, \`messengerUserId\`, \`ipAddress\`, \`walletAddress\`, \`walletClassify\`, \`isPremium\`, \`isHighValue\`, \`walletHasBalance\`, \`language\`, \`lastFields\`, \`updatedAt\` FROM \`profiles\``,
        [uploaders[0].accountId],
      );
      await queryRunner.query(`DROP TABLE \`profiles\``);
    } else if (Number(n) > 0) {
      await queryRunner.query(`RENAME TABLE \`profiles\` TO \`profiles_unattributed\``);
    } else {
      await queryRunner.query(`DROP TABLE \`profiles\``);
    }
    await queryRunner.query(`RENAME TABLE \`profiles_per_publisher\` TO \`profiles\``);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE \`profiles_global\` (\`messengerUserId\` varchar(128) COLLATE utf8mb4_bin NOT NULL, \`ipAddress\` varchar(64) NULL, \`walletAddress\` varchar(128) NULL, \`walletClassify\` varchar(16) NULL, \`isPremium\` tinyint NULL, \`isHighValue\` tinyint NULL, \`walletHasBalance\` tinyint NULL, \`language\` varchar(8) NULL, \`lastFields\` int NOT NULL DEFAULT '0', \`updatedAt\` bigint NOT NULL, PRIMARY KEY (\`messengerUserId\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
    );
    // one row per user: the most recently written of the publishers' profiles
    await queryRunner.query(
      `INSERT INTO \`profiles_global\` (\`messengerUserId\`, \`ipAddress\`, \`walletAddress\`, \`walletClassify\`, \`isPremium\`, \`isHighValue\`, \`walletHasBalance\`, \`language\`, \`lastFields\`, \`updatedAt\`) SELECT p.\`messengerUserId\`, p.\`ipAddress\`, p.\`walletAddress\`, p.\`walletClassify\`, p.\`isPremium\`, p.\`isHighValue\`, p.\`walletHasBalance\`, p.\`language\`, p.\`lastFields\`, p.\`updatedAt\` FROM \`profiles\` p WHERE NOT EXISTS (SELECT 1 FROM \`profiles\` q WHERE q.\`messengerUserId\` = p.\`messengerUserId\` AND (q.\`updatedAt\` > p.\`updatedAt\` OR (q.\`updatedAt\` = p.\`updatedAt\` AND q.\`accountId\` > p.\`accountId\`)))`,
    );
    const kept: unknown[] = await queryRunner.query(`SHOW TABLES LIKE 'profiles_unattributed'`);
    if (kept.length > 0) {
      await queryRunner.query(`INSERT IGNORE INTO \`profiles_global\` SELECT * FROM \`profiles_unattributed\``);
      await queryRunner.query(`DROP TABLE \`profiles_unattributed\``);
    }
    await queryRunner.query(`DROP TABLE \`profiles\``);
    await queryRunner.query(`RENAME TABLE \`profiles_global\` TO \`profiles\``);
    await queryRunner.query(`ALTER TABLE \`ad_blocks\` DROP COLUMN \`requireSignedViewer\``);
  }
}
