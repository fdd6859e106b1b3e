import { MigrationInterface, QueryRunner } from 'typeorm';

/** The time each raw event table is kept by: retention deletes by it in batches (docs/SCALING.md, step 4). */
const RETAINED_BY: [table: string, column: string][] = [
  ['clicks', 'createdAt'],
  ['conversions', 'createdAt'],
  ['exchange_clicks', 'createdAt'],
  ['exchange_conversions', 'createdAt'],
  ['verification_calls', 'calledAt'],
];

/**
 * The same columns and unique keys as on MySQL (where these tables are partitioned by day): conversions and exchange
 * conversions get `partitionAt`, their credited click's createdAt, else their own. SQLite has no partitions: an
 * index on each table's time lets the batched deletes of retention find old rows without a scan.
 */
export class EventPartitions1763899200000 implements MigrationInterface {
  name = 'EventPartitions1763899200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "conversions" ADD COLUMN "partitionAt" bigint NOT NULL DEFAULT (0)`);
    await queryRunner.query(
      `UPDATE "conversions" SET "partitionAt" = COALESCE((SELECT c."createdAt" FROM "clicks" c WHERE c."id" = "conversions"."clickId"), "createdAt")`,
    );
    await queryRunner.query(`DROP INDEX "uq_conversions_click_event"`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_conversions_click_event" ON "conversions" ("clickId", "eventType", "partitionAt") `);
    await queryRunner.query(`ALTER TABLE "exchange_conversions" ADD COLUMN "partitionAt" bigint NOT NULL DEFAULT (0)`);
    await queryRunner.query(
      `UPDATE "exchange_conversions" SET "partitionAt" = COALESCE((SELECT c."createdAt" FROM "exchange_clicks" c WHERE c."id" = "exchange_conversions"."exchangeClickId"), "createdAt")`,
    );
    await queryRunner.query(`DROP INDEX "uq_exchange_conversions_click"`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_exchange_conversions_click" ON "exchange_conversions" ("exchangeClickId", "partitionAt") `);
    for (const [table, column] of RETAINED_BY) await queryRunner.query(`CREATE INDEX "idx_${table}_retention" ON "${table}" ("${column}") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table] of [...RETAINED_BY].reverse()) await queryRunner.query(`DROP INDEX "idx_${table}_retention"`);
    await queryRunner.query(`DROP INDEX "uq_exchange_conversions_click"`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_exchange_conversions_click" ON "exchange_conversions" ("exchangeClickId") `);
    await queryRunner.query(`ALTER TABLE "exchange_conversions" DROP COLUMN "partitionAt"`);
    await queryRunner.query(`DROP INDEX "uq_conversions_click_event"`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_conversions_click_event" ON "conversions" ("clickId", "eventType") `);
    await queryRunner.query(`ALTER TABLE "conversions" DROP COLUMN "partitionAt"`);
  }
}
