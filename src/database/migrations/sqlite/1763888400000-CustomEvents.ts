import { MigrationInterface, QueryRunner } from 'typeorm';

const EVENT_COUNTERS = ['onboardEvents', 'registerEvents', 'playEvents', 'paymentEvents', 'withdrawEvents'];

export class CustomEvents1763888400000 implements MigrationInterface {
  name = 'CustomEvents1763888400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "conversions" ADD COLUMN "eventType" varchar(16) NOT NULL DEFAULT ('conversion')`);
    await queryRunner.query(`DROP INDEX "uq_conversions_click"`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_conversions_click_event" ON "conversions" ("clickId", "eventType") `);
    await queryRunner.query(`ALTER TABLE "campaigns" ADD COLUMN "optimizationEvent" varchar(16) NOT NULL DEFAULT ('conversion')`);
    for (const table of ['campaigns', 'stats_hourly']) {
      for (const column of EVENT_COUNTERS) await queryRunner.query(`ALTER TABLE "${table}" ADD COLUMN "${column}" bigint NOT NULL DEFAULT (0)`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['stats_hourly', 'campaigns']) {
      for (const column of [...EVENT_COUNTERS].reverse()) await queryRunner.query(`ALTER TABLE "${table}" DROP COLUMN "${column}"`);
    }
    await queryRunner.query(`ALTER TABLE "campaigns" DROP COLUMN "optimizationEvent"`);
    // custom events cannot stay: without the event type a click could hold only one of them
    await queryRunner.query(`DELETE FROM "conversions" WHERE "eventType" <> 'conversion'`);
    await queryRunner.query(`DROP INDEX "uq_conversions_click_event"`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_conversions_click" ON "conversions" ("clickId") `);
    await queryRunner.query(`ALTER TABLE "conversions" DROP COLUMN "eventType"`);
  }
}
