'use strict';
/**
 * What MySQL spends per click on the click's group commit, statement by statement. The build's own stats writer
 * (`dist/src/stats/stats-writer.service.js`) builds each group commit of GROUP clicks on random campaigns, blocks,
 * users, countries and platforms of the database bench/serving.js seeded (spread as the bench's clicks are), and its
 * one multi-statement transaction is sent to MySQL as the service sends it, one group at a time; then again with one
 * kind of statement left out at a time. Each variant prints mysqld's CPU per click (from /proc) and the time per group
 * from sending to COMMIT answered: the difference to the full write is what that statement costs. Not part of the
 * service; it writes click rows and counters into the bench database (bench/serving.js recreates it). Every round
 * leaves the tables larger and costs more than the one before (new report and click rows go into bigger indexes), so
 * compare variants within a round, on a freshly seeded database.
 *
 *   npm run build && BENCH_STORES=mysql BENCH_PHASES=saturation node bench/serving.js   # seeds adnet_bench
 *   node bench/probes/click-write.js
 *
 * BENCH_DATABASE_URL (mysql://root@127.0.0.1:3306/adnet_bench), CLICK_WRITE_GROUP (21 clicks per group commit, as the
 * bench's saturation runs), CLICK_WRITE_GROUPS (400 per variant), CLICK_WRITE_ROUNDS (2: the variants alternate).
 */
const path = require('node:path');
const mysql = require('mysql2/promise');
const { ROOT, cpuMeter, pidOf } = require('../lib');

const DATABASE_URL = process.env.BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306/adnet_bench';
const GROUP = Number(process.env.CLICK_WRITE_GROUP || 21);
const GROUPS = Number(process.env.CLICK_WRITE_GROUPS || 400);
const ROUNDS = Number(process.env.CLICK_WRITE_ROUNDS || 2);

/**
 * The statements of a group commit, by what they write; a variant leaves one kind out.
 * @type {[string, RegExp][]}
 */
const KINDS = [
  ['click rows', /^INSERT INTO clicks /],
  ['stats_hourly', /^INSERT INTO stats_hourly /],
  ['stats_report_hourly', /^INSERT INTO stats_report_hourly /],
  ['campaign counters', /^UPDATE campaigns /],
  ['block counters', /^UPDATE ad_blocks /],
];
/** @type {[string, (sql: string) => boolean][]} */
const VARIANTS = [
  ['the whole write', () => true],
  ...KINDS.map(([name, pattern]) => /** @type {[string, (sql: string) => boolean]} */ ([`without ${name}`, (sql) => !pattern.test(sql)])),
  ['marker and COMMIT only', (sql) => !KINDS.some(([, pattern]) => pattern.test(sql))],
];

const COUNTRIES = ['US', 'DE', 'BR', 'IN', 'RU', 'NG', 'ID', ''];
const PLATFORMS = ['ios', 'android', 'desktop', ''];
const pick = (list) => list[Math.floor(Math.random() * list.length)];

/** Splits a multi-statement query as StatementBatch joins it, each statement with its own parameters. */
function split(sql, params) {
  const statements = [];
  let offset = 0;
  for (const one of sql.split(';\n')) {
    const count = (one.match(/\?/g) ?? []).length;
    statements.push({ sql: one, params: params.slice(offset, offset + count) });
    offset += count;
  }
  return statements;
}

async function main() {
  const { StatsWriterService } = require(path.join(ROOT, 'dist/src/stats/stats-writer.service.js'));
  const { StatsRepository } = require(path.join(ROOT, 'dist/src/stats/stats.repository.js'));
  const { ClickRepository } = require(path.join(ROOT, 'dist/src/clicks/click.repository.js'));
  const { MetricsService } = require(path.join(ROOT, 'dist/src/metrics/metrics.service.js'));
  const { newId } = require(path.join(ROOT, 'dist/src/common/ids.js'));

  const connection = await mysql.createConnection({ uri: DATABASE_URL, multipleStatements: true });
  const [campaigns] = /** @type {[{ id: string, accountId: string }[], unknown]} */ (await connection.query('SELECT id, accountId FROM campaigns'));
  const [blockRows] = /** @type {[{ id: string }[], unknown]} */ (await connection.query('SELECT id FROM ad_blocks'));
  const blocks = blockRows.map((row) => row.id);
  if (campaigns.length === 0 || blocks.length === 0) throw new Error(`no campaigns or ad blocks in ${DATABASE_URL}: seed it with bench/serving.js first`);

  // The writer's transaction goes through this data source: each statement the variant keeps, sent as one query.
  /** @type {(sql: string) => boolean} */
  let keep = () => true;
  const dataSource = {
    options: { type: 'mysql' },
    createQueryRunner: () => ({
      connect: async () => undefined,
      release: async () => undefined,
      query: async (sql, params = []) => {
        const kept = split(sql, params).filter(
          (statement) => /^(START TRANSACTION|COMMIT|ROLLBACK)$/.test(statement.sql) || /stats_writes/.test(statement.sql) || keep(statement.sql),
        );
        await connection.query(
          kept.map((statement) => statement.sql).join(';\n'),
          kept.flatMap((statement) => statement.params),
        );
      },
    }),
    query: (sql, params) => connection.query(sql, params).then(([rows]) => rows),
  };
  const config = { database: { type: 'mysql' }, statsFlushMs: 3_600_000 };
  const writer = new StatsWriterService(dataSource, config, new StatsRepository(config, undefined), new ClickRepository(dataSource), new MetricsService());

  const clickOf = (now) => {
    const campaign = pick(campaigns);
    return {
      id: newId(now),
      campaignId: campaign.id,
      advertiserId: campaign.accountId,
      adBlockId: pick(blocks),
      adId: `ad-${campaign.id}`,
      messengerUserId: `probe-user-${Math.floor(Math.random() * 1e9)}`,
      costMicros: 10_000,
      earningsMicros: 7_000,
      createdAt: now,
      status: 'counted',
      invalidReason: null,
      verificationStatus: 'none',
      clickToken: null,
      country: pick(COUNTRIES),
      platform: pick(PLATFORMS),
      day: new Date(now).toISOString().slice(0, 10),
    };
  };

  const mysqld = cpuMeter({ mysql: pidOf('mariadbd') ?? pidOf('mysqld') });
  process.stdout.write(
    `${campaigns.length} campaigns, ${blocks.length} ad blocks in ${DATABASE_URL}; ${GROUP} clicks per group commit, ${GROUPS} groups per variant\n`,
  );
  const results = new Map(VARIANTS.map(([name]) => [name, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, filter] of VARIANTS) {
      keep = filter;
      const stop = mysqld.start();
      const started = performance.now();
      for (let group = 0; group < GROUPS; group++) {
        const now = Date.now();
        // one turn's clicks: the writer takes every click waiting into one transaction
        await Promise.all(Array.from({ length: GROUP }, () => writer.recordClick(clickOf(now))));
      }
      const ms = performance.now() - started;
      const cpu = stop(GROUP * GROUPS).mysql;
      results.get(name).push({ cpu, msPerGroup: ms / GROUPS });
      process.stdout.write(`  round ${round}, ${name}: MySQL ${cpu?.toFixed(1) ?? '?'} µs of CPU per click, ${(ms / GROUPS).toFixed(2)} ms per group commit\n`);
    }
  }
  const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const whole = mean(results.get('the whole write').map((result) => result.cpu));
  process.stdout.write('MySQL CPU per click (mean of the rounds), and what leaving a statement out saves:\n');
  for (const [name] of VARIANTS) {
    const cpu = mean(results.get(name).map((result) => result.cpu));
    const ms = mean(results.get(name).map((result) => result.msPerGroup));
    process.stdout.write(
      `  ${name.padEnd(34)} ${cpu.toFixed(1).padStart(6)} µs${name === 'the whole write' ? '' : `  (${(whole - cpu).toFixed(1)} µs less)`}, ${ms.toFixed(2)} ms per group\n`,
    );
  }
  await connection.end();
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`click-write probe failed: ${error.stack}\n`);
    process.exit(1);
  },
);
