import { MigrationInterface, QueryRunner } from 'typeorm';

const EVENT_COUNTERS = ['onboardEvents', 'registerEvents', 'playEvents', 'paymentEvents', 'withdrawEvents'];
const addCounters = () => EVENT_COUNTERS.map((column) => `ADD \`${column}\` bigint NOT NULL DEFAULT '0'`).join(', ');
const dropCounters = () =>
  [...EVENT_COUNTERS]
    .reverse()
    .map((column) => `DROP COLUMN \`${column}\``)
    .join(', ');

export class CustomEvents1763888400000 implements MigrationInterface {
  name = 'CustomEvents1763888400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE \`conversions\` ADD \`eventType\` varchar(16) NOT NULL DEFAULT 'conversion', DROP INDEX \`uq_conversions_click\`, ADD UNIQUE INDEX \`uq_conversions_click_event\` (\`clickId\`, \`eventType\`)`,
    );
    await queryRunner.query(`ALTER TABLE \`campaigns\` ADD \`optimizationEvent\` varchar(16) NOT NULL DEFAULT 'conversion', ${addCounters()}`);
    await queryRunner.query(`ALTER TABLE \`stats_hourly\` ${addCounters()}`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE \`stats_hourly\` ${dropCounters()}`);
    await queryRunner.query(`ALTER TABLE \`campaigns\` ${dropCounters()}, DROP COLUMN \`optimizationEvent\``);
    // custom events cannot stay: without the event type a click could hold only one of them
    await queryRunner.query(`DELETE FROM \`conversions\` WHERE \`eventType\` <> 'conversion'`);
    await queryRunner.query(
      `ALTER TABLE \`conversions\` DROP INDEX \`uq_conversions_click_event\`, ADD UNIQUE INDEX \`uq_conversions_click\` (\`clickId\`), DROP COLUMN \`eventType\``,
    );
  }
}
