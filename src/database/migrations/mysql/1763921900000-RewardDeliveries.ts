import { MigrationInterface, QueryRunner } from 'typeorm';

/** Reward callbacks (docs/REWARDED_ADS.md): their delivery log, the daily cap's counters, the previous webhook secret. */
export class RewardDeliveries1763921900000 implements MigrationInterface {
  name = 'RewardDeliveries1763921900000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE `reward_deliveries` (`eventId` varchar(64) NOT NULL, `adBlockId` varchar(26) NOT NULL, `publisherId` varchar(26) NOT NULL, ' +
        '`messengerUserId` varchar(128) NOT NULL, `campaignId` varchar(26) NOT NULL, `adId` varchar(64) NOT NULL, `status` varchar(16) NOT NULL, ' +
        "`attempts` int NOT NULL DEFAULT '0', `lastStatusCode` int NULL, `lastError` varchar(500) NULL, `createdAt` bigint NOT NULL, " +
        "`deliveredAt` bigint NULL, `replays` int NOT NULL DEFAULT '0', " +
        'INDEX `idx_reward_deliveries_block` (`adBlockId`, `createdAt`), INDEX `idx_reward_deliveries_status` (`status`, `createdAt`), ' +
        'PRIMARY KEY (`eventId`)) ENGINE=InnoDB',
    );
    await queryRunner.query(
      'CREATE TABLE `reward_day_counts` (`adBlockId` varchar(26) NOT NULL, `messengerUserId` varchar(128) NOT NULL, `day` varchar(10) NOT NULL, ' +
        "`rewards` int NOT NULL DEFAULT '0', PRIMARY KEY (`adBlockId`, `messengerUserId`, `day`)) ENGINE=InnoDB",
    );
    await queryRunner.query('ALTER TABLE `accounts` ADD `previousWebhookSecret` varchar(64) NULL, ADD `webhookSecretRotatedAt` bigint NULL');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE `accounts` DROP COLUMN `webhookSecretRotatedAt`, DROP COLUMN `previousWebhookSecret`');
    await queryRunner.query('DROP TABLE `reward_day_counts`');
    await queryRunner.query('DROP TABLE `reward_deliveries`');
  }
}
