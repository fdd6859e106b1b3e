import { MigrationInterface, QueryRunner } from 'typeorm';
import { initialPartitionsSql } from '../../day-partitions';

const COUNTERS = [
  'impressions',
  'clicks',
  'unbilledClicks',
  'invalidClicks',
  'invalidImpressions',
  'views',
  'conversions',
  'onboardEvents',
  'registerEvents',
  'playEvents',
  'paymentEvents',
  'withdrawEvents',
  'verifiedClicks',
  'spendMicros',
  'earningsMicros',
];

/**
 * The report rollup `stats_report_hourly` (docs/SCALING.md, "Reports"): the hourly counters split by the viewer's
 * country and platform. The hours so far are copied from `stats_hourly` with an unknown country and platform, so a
 * report over them still adds up to the series. Partitioned by day of `hour`, like the event tables, so
 * RetentionService drops whole days past REPORT_RETENTION_DAYS.
 */
export class ReportRollup1763906400000 implements MigrationInterface {
  name = 'ReportRollup1763906400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const counters = COUNTERS.map((column) => `\`${column}\` bigint NOT NULL DEFAULT '0'`).join(', ');
    await queryRunner.query(
      `CREATE TABLE \`stats_report_hourly\` (\`campaignId\` varchar(26) NOT NULL, \`adBlockId\` varchar(26) NOT NULL, \`hour\` bigint NOT NULL, \`country\` varchar(2) NOT NULL, \`platform\` varchar(8) NOT NULL, ${counters}, INDEX \`idx_report_block_hour\` (\`adBlockId\`, \`hour\`), INDEX \`idx_report_hour\` (\`hour\`), PRIMARY KEY (\`campaignId\`, \`adBlockId\`, \`hour\`, \`country\`, \`platform\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci ${initialPartitionsSql('hour', Date.now())}`,
    );
    const columns = COUNTERS.map((column) => `\`${column}\``).join(', ');
    await queryRunner.query(
      `INSERT INTO \`stats_report_hourly\` (\`campaignId\`, \`adBlockId\`, \`hour\`, \`country\`, \`platform\`, ${columns}) SELECT \`campaignId\`, \`adBlockId\`, \`hour\`, '', '', ${columns} FROM \`stats_hourly\``,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE \`stats_report_hourly\``);
  }
}
