'use strict';
/**
 * What the serving index's refresh query costs per page on SQLite, with the (status, id) index the migrations create
 * and with the status-only index it replaced: the query plan, and the pages of 250 and of 1,000 read one after the
 * other as CampaignRepository.servableCountersPage reads them (time in all, longest page). Runs on a copy of the
 * embedded database bench/serving.js seeded (10,000 campaigns by default), so the bench's file is not changed. Not
 * part of the service.
 *   npm run build && BENCH_STORES=embedded BENCH_PHASES=saturation node bench/serving.js   # seeds the database
 *   node bench/probes/refresh-pages.js
 */
const fs = require('node:fs');
const Database = require('better-sqlite3');

const SOURCE = process.env.REFRESH_PAGES_DB || '/tmp/adnet-bench-embedded/adnet.sqlite';
const COPY = '/tmp/adnet-refresh-pages.sqlite';
// the query servableCountersPage builds (servableWhere, then after an id, in id order)
const PAGE_SQL = `SELECT c.id, c.version, c.spentMicros, c.daySpentMicros, c.spentDay, c.clicks, c.impressions FROM campaigns c
  WHERE c.status = 'onGoing' AND c.approved = 1 AND c.endTime > ? AND c.id > ? ORDER BY c.id LIMIT ?`;

function walk(db, pageSize) {
  const page = db.prepare(PAGE_SQL);
  const started = performance.now();
  let longest = 0;
  let pages = 0;
  for (let afterId = ''; ; pages++) {
    const pageStarted = performance.now();
    const rows = page.all(Date.now(), afterId, pageSize);
    longest = Math.max(longest, performance.now() - pageStarted);
    if (rows.length < pageSize) break;
    afterId = rows[rows.length - 1].id;
  }
  return `pages of ${pageSize}: ${pages + 1} pages in ${(performance.now() - started).toFixed(1)} ms, longest ${longest.toFixed(1)} ms`;
}

function measure(db, label) {
  const plan = db
    .prepare(`EXPLAIN QUERY PLAN ${PAGE_SQL}`)
    .all(Date.now(), '', 250)
    .map((step) => step.detail)
    .join('; ');
  process.stdout.write(`${label}\n  plan: ${plan}\n`);
  for (const pageSize of [250, 1000]) {
    walk(db, pageSize); // warm the page cache and the statement
    process.stdout.write(`  ${walk(db, pageSize)}\n`);
  }
}

if (!fs.existsSync(SOURCE)) throw new Error(`no database at ${SOURCE}: seed it with bench/serving.js first`);
for (const suffix of ['', '-wal', '-shm']) fs.rmSync(COPY + suffix, { force: true });
const source = new Database(SOURCE, { readonly: true });
source.backup(COPY).then(() => {
  source.close();
  const db = new Database(COPY);
  const indexes = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'campaigns'")
    .all()
    .map((row) => row.name);
  const campaigns = db.prepare("SELECT COUNT(*) AS n FROM campaigns WHERE status = 'onGoing'").get().n;
  process.stdout.write(`${campaigns} campaigns on going in a copy of ${SOURCE}\n`);
  if (!indexes.includes('idx_campaigns_status_id')) db.exec('CREATE INDEX "idx_campaigns_status_id" ON "campaigns" ("status", "id")');
  db.exec('DROP INDEX IF EXISTS "idx_campaigns_status"');
  measure(db, 'with the (status, id) index');
  db.exec('DROP INDEX "idx_campaigns_status_id"; CREATE INDEX "idx_campaigns_status" ON "campaigns" ("status")');
  measure(db, 'with the status-only index it replaced');
  db.close();
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(COPY + suffix, { force: true });
});
