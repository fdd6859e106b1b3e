import { MigrationInterface, QueryRunner } from 'typeorm';

/** `Idempotency-Key` records (docs/CONTRACT.md §20), kept 24 h and swept by IdempotencyService. */
export class IdempotencyKeys1763913600000 implements MigrationInterface {
  name = 'IdempotencyKeys1763913600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "idempotency_keys" ("accountId" varchar(26) NOT NULL, "idempotencyKey" varchar(255) NOT NULL, "requestHash" varchar(64) NOT NULL, "status" integer, "contentType" varchar(100), "body" text, "createdAt" bigint NOT NULL, "expiresAt" bigint NOT NULL, PRIMARY KEY ("accountId", "idempotencyKey"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_idempotency_expires" ON "idempotency_keys" ("expiresAt") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_idempotency_expires"`);
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
  }
}
