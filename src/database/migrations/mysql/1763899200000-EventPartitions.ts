import { MigrationInterface, QueryRunner } from 'typeorm';
import { initialPartitionsSql } from '../../day-partitions';

/** Tables keyed by (id, their time) and partitioned by day of that time. */
const BY_OWN_TIME: [table: string, column: string][] = [
  ['clicks', 'createdAt'],
  ['exchange_clicks', 'createdAt'],
  ['verification_calls', 'calledAt'],
];

/**
 * The raw event tables partitioned by UTC day (docs/SCALING.md, step 4). MySQL wants the partition column in every
 * unique key: conversions and exchange conversions get `partitionAt`, their credited click's createdAt (the same
 * for every report on one click, so the unique keys stay as strict), else their own createdAt. The rows so far go
 * into one partition ending with today, and the next 7 days are made in the same copy; RetentionService keeps it up.
 */
export class EventPartitions1763899200000 implements MigrationInterface {
  name = 'EventPartitions1763899200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const now = Date.now();
    for (const [table, column] of BY_OWN_TIME) {
      await queryRunner.query(`ALTER TABLE \`${table}\` DROP PRIMARY KEY, ADD PRIMARY KEY (\`id\`, \`${column}\`) ${initialPartitionsSql(column, now)}`);
    }
    await queryRunner.query(`ALTER TABLE \`conversions\` ADD \`partitionAt\` bigint NOT NULL DEFAULT '0'`);
    await queryRunner.query(
      `UPDATE \`conversions\` v LEFT JOIN \`clicks\` c ON c.\`id\` = v.\`clickId\` SET v.\`partitionAt\` = COALESCE(c.\`createdAt\`, v.\`createdAt\`)`,
    );
    await queryRunner.query(
      `ALTER TABLE \`conversions\` ALTER \`partitionAt\` DROP DEFAULT, DROP PRIMARY KEY, ADD PRIMARY KEY (\`id\`, \`partitionAt\`), DROP INDEX \`uq_conversions_click_event\`, ADD UNIQUE INDEX \`uq_conversions_click_event\` (\`clickId\`, \`eventType\`, \`partitionAt\`) ${initialPartitionsSql('partitionAt', now)}`,
    );
    await queryRunner.query(`ALTER TABLE \`exchange_conversions\` ADD \`partitionAt\` bigint NOT NULL DEFAULT '0'`);
    await queryRunner.query(
      `UPDATE \`exchange_conversions\` v LEFT JOIN \`exchange_clicks\` c ON c.\`id\` = v.\`exchangeClickId\` SET v.\`partitionAt\` = COALESCE(c.\`createdAt\`, v.\`createdAt\`)`,
    );
    await queryRunner.query(
      `ALTER TABLE \`exchange_conversions\` ALTER \`partitionAt\` DROP DEFAULT, DROP PRIMARY KEY, ADD PRIMARY KEY (\`id\`, \`partitionAt\`), DROP INDEX \`uq_exchange_conversions_click\`, ADD UNIQUE INDEX \`uq_exchange_conversions_click\` (\`exchangeClickId\`, \`partitionAt\`) ${initialPartitionsSql('partitionAt', now)}`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['exchange_conversions', 'conversions', ...BY_OWN_TIME.map(([name]) => name).reverse()]) {
      await queryRunner.query(`ALTER TABLE \`${table}\` REMOVE PARTITIONING`);
    }
    await queryRunner.query(
      `ALTER TABLE \`exchange_conversions\` DROP INDEX \`uq_exchange_conversions_click\`, ADD UNIQUE INDEX \`uq_exchange_conversions_click\` (\`exchangeClickId\`), DROP PRIMARY KEY, ADD PRIMARY KEY (\`id\`), DROP COLUMN \`partitionAt\``,
    );
    await queryRunner.query(
      `ALTER TABLE \`conversions\` DROP INDEX \`uq_conversions_click_event\`, ADD UNIQUE INDEX \`uq_conversions_click_event\` (\`clickId\`, \`eventType\`), DROP PRIMARY KEY, ADD PRIMARY KEY (\`id\`), DROP COLUMN \`partitionAt\``,
    );
    for (const [table] of [...BY_OWN_TIME].reverse()) {
      await queryRunner.query(`ALTER TABLE \`${table}\` DROP PRIMARY KEY, ADD PRIMARY KEY (\`id\`)`);
    }
  }
}
