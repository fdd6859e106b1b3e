'use strict';
/**
 * What removing a day of raw events costs on MySQL/MariaDB: `DROP PARTITION` (what the retention job does) against
 * DELETEs of 5,000 rows per statement (what it would take unpartitioned, and what SQLite does), and what adding
 * partitions ahead costs (`REORGANIZE PARTITION pmax`, empty and holding a day). Not part of the service.
 *
 *   BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306/<own database> [BENCH_ROWS_PER_DAY=200000] node bench/probes/event-retention.js
 *
 * It creates and drops its own table `bench_event_retention` (the shape and keys of `clicks`).
 */
const mysql = require('mysql2/promise');

const DAY = 24 * 60 * 60 * 1000;
const ROWS_PER_DAY = Number(process.env.BENCH_ROWS_PER_DAY || 200_000);
const TABLE = 'bench_event_retention';

async function main() {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) throw new Error('BENCH_DATABASE_URL=mysql://… (a database of its own) is required');
  const db = await mysql.createConnection({ uri: url, multipleStatements: false });
  const day0 = Math.floor(Date.now() / DAY) * DAY - 10 * DAY;
  const bound = (/** @type {number} */ day) => day0 + (day + 1) * DAY;
  await db.query(`DROP TABLE IF EXISTS ${TABLE}`);
  await db.query(
    `CREATE TABLE ${TABLE} (id varchar(26) NOT NULL, campaignId varchar(26) NOT NULL, advertiserId varchar(26) NOT NULL, adBlockId varchar(26) NOT NULL,
     adId varchar(40) NOT NULL, messengerUserId varchar(128) NOT NULL, costMicros bigint NOT NULL DEFAULT 0, earningsMicros bigint NOT NULL DEFAULT 0,
     createdAt bigint NOT NULL, status varchar(16) NOT NULL DEFAULT 'counted', verificationStatus varchar(16) NOT NULL DEFAULT 'none',
     INDEX idx_user_time (messengerUserId, createdAt), INDEX idx_campaign_time (campaignId, createdAt), INDEX idx_verification_time (verificationStatus, createdAt),
     PRIMARY KEY (id, createdAt)) ENGINE=InnoDB
     PARTITION BY RANGE (createdAt) (PARTITION d0 VALUES LESS THAN (${bound(0)}), PARTITION d1 VALUES LESS THAN (${bound(1)}),
     PARTITION d2 VALUES LESS THAN (${bound(2)}), PARTITION pmax VALUES LESS THAN MAXVALUE)`,
  );
  const started = Date.now();
  for (const day of [0, 1, 3]) {
    for (let i = 0; i < ROWS_PER_DAY; i += 2000) {
      const rows = [];
      for (let j = i; j < Math.min(i + 2000, ROWS_PER_DAY); j++) {
        const at = day0 + day * DAY + Math.floor((j / ROWS_PER_DAY) * DAY);
        rows.push([`${day}-${j}`.padStart(26, '0'), `c${j % 50}`, `a${j % 7}`, `b${j % 30}`, 'ad', `user-${j % 40_000}`, 30_000, 21_000, at]);
      }
      await db.query(`INSERT INTO ${TABLE} (id, campaignId, advertiserId, adBlockId, adId, messengerUserId, costMicros, earningsMicros, createdAt) VALUES ?`, [
        rows,
      ]);
    }
  }
  console.log(`${TABLE}: ${3 * ROWS_PER_DAY} rows in 3 days (2 partitions and pmax holding one) written in ${Date.now() - started} ms`);

  const timed = async (/** @type {string} */ what, /** @type {() => Promise<unknown>} */ work) => {
    const t0 = process.hrtime.bigint();
    await work();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    console.log(`${what}: ${ms.toFixed(1)} ms`);
  };

  await timed(`DROP PARTITION of a day of ${ROWS_PER_DAY} rows`, () => db.query(`ALTER TABLE ${TABLE} DROP PARTITION d0`));
  let statements = 0;
  await timed(`DELETE of a day of ${ROWS_PER_DAY} rows, 5,000 per statement`, async () => {
    for (;;) {
      const [result] = await db.query(`DELETE FROM ${TABLE} WHERE createdAt < ? LIMIT 5000`, [bound(1)]);
      statements += 1;
      if (/** @type {{ affectedRows: number }} */ (result).affectedRows < 5000) break;
    }
  });
  console.log(`  (${statements} statements)`);
  const ahead = (/** @type {number} */ from, /** @type {number} */ days) =>
    Array.from({ length: days }, (_, i) => `PARTITION a${from + i} VALUES LESS THAN (${bound(from + i)})`).join(', ');
  await timed(`REORGANIZE pmax holding a day of ${ROWS_PER_DAY} rows into 7 days + pmax`, () =>
    db.query(`ALTER TABLE ${TABLE} REORGANIZE PARTITION pmax INTO (${ahead(3, 7)}, PARTITION pmax VALUES LESS THAN MAXVALUE)`),
  );
  await timed('REORGANIZE an empty pmax into 7 days + pmax (the hourly job, normally)', () =>
    db.query(`ALTER TABLE ${TABLE} REORGANIZE PARTITION pmax INTO (${ahead(10, 7)}, PARTITION pmax VALUES LESS THAN MAXVALUE)`),
  );
  await db.query(`DROP TABLE ${TABLE}`);
  await db.end();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
