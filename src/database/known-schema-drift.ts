/**
 * Differences between the entities and the migrations that are known today, statement by statement, as
 * `schemaDrift` reports them on a database built by the migrations (`npm run schema:check` prints any other and fails,
 * and fails too when one of these is gone, so the list only shrinks). Each group says why it differs. Declaring
 * these in the entities would let the list go; until then a new difference cannot hide among them.
 */
export const KNOWN_SCHEMA_DRIFT: Record<'sqlite' | 'mysql', readonly string[]> = {
  sqlite: [
    /**
     * The retention indexes the migrations make on the event tables (docs/SCALING.md), not declared by the entities.
     */
    'DROP INDEX "idx_clicks_retention"',
    'DROP INDEX "idx_conversions_retention"',
    'DROP INDEX "idx_verification_calls_retention"',
    'DROP INDEX "idx_exchange_clicks_retention"',
    'DROP INDEX "idx_exchange_conversions_retention"',
    /**
     * The conversions' unique keys, made by the migrations with the partition column, rebuilt by TypeORM's table copy.
     */
    'DROP INDEX "uq_conversions_click_event"',
    'DROP INDEX "idx_conversions_advertiser_time"',
    'CREATE TABLE "temporary_conversions" ("id" varchar(26) PRIMARY KEY NOT NULL, "advertiserId" varchar(26) NOT NULL, "messengerUserId" varchar(128) NOT NULL, "clickId" varchar(26), "campaignId" varchar(26), "createdAt" bigint NOT NULL, "eventType" varchar(16) NOT NULL DEFAULT (\'conversion\'), "partitionAt" bigint NOT NULL)',
    'INSERT INTO "temporary_conversions"("id", "advertiserId", "messengerUserId", "clickId", "campaignId", "createdAt", "eventType", "partitionAt") SELECT "id", "advertiserId", "messengerUserId", "clickId", "campaignId", "createdAt", "eventType", "partitionAt" FROM "conversions"',
    'DROP TABLE "conversions"',
    'ALTER TABLE "temporary_conversions" RENAME TO "conversions"',
    'CREATE INDEX "idx_conversions_advertiser_time" ON "conversions" ("advertiserId", "createdAt")',
    'DROP INDEX "uq_exchange_conversions_click"',
    'DROP INDEX "idx_exchange_conversions_partner_time"',
    'CREATE TABLE "temporary_exchange_conversions" ("id" varchar(26) PRIMARY KEY NOT NULL, "partnerId" varchar(26) NOT NULL, "messengerUserId" varchar(128) NOT NULL, "exchangeClickId" varchar(26), "exchangeCampaignId" varchar(26), "createdAt" bigint NOT NULL, "partitionAt" bigint NOT NULL)',
    'INSERT INTO "temporary_exchange_conversions"("id", "partnerId", "messengerUserId", "exchangeClickId", "exchangeCampaignId", "createdAt", "partitionAt") SELECT "id", "partnerId", "messengerUserId", "exchangeClickId", "exchangeCampaignId", "createdAt", "partitionAt" FROM "exchange_conversions"',
    'DROP TABLE "exchange_conversions"',
    'ALTER TABLE "temporary_exchange_conversions" RENAME TO "exchange_conversions"',
    'CREATE INDEX "idx_exchange_conversions_partner_time" ON "exchange_conversions" ("partnerId", "createdAt")',
    'CREATE UNIQUE INDEX "uq_conversions_click_event" ON "conversions" ("clickId", "eventType", "partitionAt")',
    'CREATE UNIQUE INDEX "uq_exchange_conversions_click" ON "exchange_conversions" ("exchangeClickId", "partitionAt")',
  ],
  mysql: [
    /**
     * Nullable columns the migrations create exactly as the entities declare them (`… NULL`): TypeORM reads MariaDB's
     * NULL default back as a difference and proposes the same column again.
     */
    'ALTER TABLE `accounts` CHANGE `postbackToken` `postbackToken` varchar(64) NULL',
    'ALTER TABLE `api_keys` CHANGE `allowedOrigins` `allowedOrigins` text NULL',
    'ALTER TABLE `api_keys` CHANGE `bootstrap` `bootstrap` varchar(10) NULL',
    'ALTER TABLE `api_keys` CHANGE `revokedAt` `revokedAt` bigint NULL',
    'ALTER TABLE `campaigns` CHANGE `verificationUrl` `verificationUrl` varchar(2048) NULL',
    'ALTER TABLE `campaigns` CHANGE `frequencyCapImpressions` `frequencyCapImpressions` int NULL',
    'ALTER TABLE `campaigns` CHANGE `frequencyCapHours` `frequencyCapHours` int NULL',
    'ALTER TABLE `clicks` CHANGE `invalidReason` `invalidReason` varchar(32) NULL',
    'ALTER TABLE `idempotency_keys` CHANGE `status` `status` int NULL',
    'ALTER TABLE `idempotency_keys` CHANGE `contentType` `contentType` varchar(100) NULL',
    'ALTER TABLE `idempotency_keys` CHANGE `body` `body` text NULL',
    'ALTER TABLE `clicks` CHANGE `clickToken` `clickToken` varchar(40) NULL',
    'ALTER TABLE `clicks` CHANGE `verificationError` `verificationError` varchar(500) NULL',
    'ALTER TABLE `clicks` CHANGE `verifiedAt` `verifiedAt` bigint NULL',
    'ALTER TABLE `conversions` CHANGE `clickId` `clickId` varchar(26) NULL',
    'ALTER TABLE `conversions` CHANGE `campaignId` `campaignId` varchar(26) NULL',
    'ALTER TABLE `verification_calls` CHANGE `httpStatus` `httpStatus` int NULL',
    'ALTER TABLE `verification_calls` CHANGE `error` `error` varchar(500) NULL',
    'ALTER TABLE `profiles` CHANGE `ipAddress` `ipAddress` varchar(64) NULL',
    'ALTER TABLE `profiles` CHANGE `walletAddress` `walletAddress` varchar(128) NULL',
    'ALTER TABLE `profiles` CHANGE `walletClassify` `walletClassify` varchar(16) NULL',
    'ALTER TABLE `profiles` CHANGE `isPremium` `isPremium` tinyint NULL',
    'ALTER TABLE `profiles` CHANGE `isHighValue` `isHighValue` tinyint NULL',
    'ALTER TABLE `profiles` CHANGE `walletHasBalance` `walletHasBalance` tinyint NULL',
    'ALTER TABLE `profiles` CHANGE `language` `language` varchar(8) NULL',
    'ALTER TABLE `profile_batches` CHANGE `error` `error` varchar(500) NULL',
    'ALTER TABLE `profile_batches` CHANGE `finishedAt` `finishedAt` bigint NULL',
    'ALTER TABLE `exchange_campaigns` CHANGE `image` `image` varchar(2048) NULL',
    'ALTER TABLE `exchange_conversions` CHANGE `exchangeClickId` `exchangeClickId` varchar(26) NULL',
    'ALTER TABLE `exchange_conversions` CHANGE `exchangeCampaignId` `exchangeCampaignId` varchar(26) NULL',
    /**
     * Indexes the migrations make for the event tables' reads and retention (and their unique keys with the partition
     * column) that the entities do not declare.
     */
    'DROP INDEX `idx_clicks_user_time` ON `clicks`',
    'DROP INDEX `idx_clicks_campaign_time` ON `clicks`',
    'DROP INDEX `idx_clicks_verification_time` ON `clicks`',
    'DROP INDEX `uq_conversions_click_event` ON `conversions`',
    'DROP INDEX `idx_verification_calls_campaign_time` ON `verification_calls`',
    'DROP INDEX `idx_exchange_clicks_in_time` ON `exchange_clicks`',
    'DROP INDEX `idx_exchange_clicks_out_time` ON `exchange_clicks`',
    'DROP INDEX `idx_exchange_clicks_in_account_user_time` ON `exchange_clicks`',
    'DROP INDEX `uq_exchange_conversions_click` ON `exchange_conversions`',
    'CREATE INDEX `idx_clicks_verification_time` ON `clicks` (`verificationStatus`, `createdAt`)',
    'CREATE INDEX `idx_clicks_user_time` ON `clicks` (`messengerUserId`, `createdAt`)',
    'CREATE INDEX `idx_clicks_campaign_time` ON `clicks` (`campaignId`, `createdAt`)',
    'CREATE UNIQUE INDEX `uq_conversions_click_event` ON `conversions` (`clickId`, `eventType`, `partitionAt`)',
    'CREATE INDEX `idx_verification_calls_campaign_time` ON `verification_calls` (`campaignId`, `calledAt`)',
    'CREATE INDEX `idx_exchange_clicks_in_account_user_time` ON `exchange_clicks` (`inAccountId`, `messengerUserId`, `createdAt`)',
    'CREATE INDEX `idx_exchange_clicks_in_time` ON `exchange_clicks` (`inExchangeCampaignId`, `createdAt`)',
    'CREATE INDEX `idx_exchange_clicks_out_time` ON `exchange_clicks` (`outExchangeCampaignId`, `createdAt`)',
    'CREATE UNIQUE INDEX `uq_exchange_conversions_click` ON `exchange_conversions` (`exchangeClickId`, `partitionAt`)',
    /**
     * The day-partitioned event tables' primary keys include the partition column (MySQL requires it of every unique key of a
     * partitioned table); the entities declare `id` alone.
     */
    'ALTER TABLE `clicks` DROP PRIMARY KEY',
    'ALTER TABLE `clicks` ADD PRIMARY KEY (`id`)',
    'ALTER TABLE `conversions` DROP PRIMARY KEY',
    'ALTER TABLE `conversions` ADD PRIMARY KEY (`id`)',
    'ALTER TABLE `verification_calls` DROP PRIMARY KEY',
    'ALTER TABLE `verification_calls` ADD PRIMARY KEY (`id`)',
    'ALTER TABLE `exchange_clicks` DROP PRIMARY KEY',
    'ALTER TABLE `exchange_clicks` ADD PRIMARY KEY (`id`)',
    'ALTER TABLE `exchange_conversions` DROP PRIMARY KEY',
    'ALTER TABLE `exchange_conversions` ADD PRIMARY KEY (`id`)',
    /**
     * `profile_batches.records` is MEDIUMTEXT on purpose (a batch of 5,000 records passes TEXT's 64 KiB); the entity says text.
     */
    'ALTER TABLE `profile_batches` DROP COLUMN `records`',
    'ALTER TABLE `profile_batches` ADD `records` text NULL',
  ],
};
