'use strict';
/**
 * The longest time the event loop is held, without a turn between, by the service's periodic work: the serving
 * index's refresh (re-reads every servable campaign's counters, every 10 s) and the stats writer's flush of a
 * second's impressions. A request that arrives during such a block waits for all of it: these blocks are what the
 * p99 of the ad fetch at a fixed rate is made of, beside garbage collection. Not part of the service.
 *
 * Runs the built service's application in this process on a database that bench/serving.js seeded (the embedded
 * profile's SQLite file by default, whose driver answers on the event loop), and times each piece of work while a
 * setImmediate chain records the longest gap between two turns:
 *   npm run build && BENCH_STORES=embedded BENCH_PHASES=saturation node bench/serving.js   # seeds 10,000 campaigns
 *   node bench/probes/loop-blocks.js
 *   BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306/adnet_bench BENCH_REDIS_URL=redis://127.0.0.1:6379 node bench/probes/loop-blocks.js
 * LOOP_BLOCKS_ROWS (7,000): the distinct (campaign, ad block) rows of the flushed second (2,000 ad requests a second
 * of 5 ads over 10,000 campaigns touch about 6,300).
 */
const path = require('node:path');
const { ROOT } = require('../lib');
const { ADMIN_KEY } = require('../lib/seed');

const ROWS = Number(process.env.LOOP_BLOCKS_ROWS || 7000);

/** Runs `work`, answering how long it took and the longest gap between two turns of the event loop meanwhile. */
async function timed(work) {
  let longest = 0;
  let last = performance.now();
  let running = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  // the gap that ends with the work's last synchronous step is recorded by the next turn
  await new Promise((resolve) => setImmediate(resolve));
  running = false;
  return { ms, longestBlockMs: longest };
}

async function main() {
  Object.assign(process.env, {
    DATABASE_URL: process.env.BENCH_DATABASE_URL || 'sqlite:/tmp/adnet-bench-embedded/adnet.sqlite',
    ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL, REDIS_PREFIX: 'adnet-bench:' } : {}),
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: 'warn',
    APP_ENV: 'production',
  });
  const { createApp } = require(path.join(ROOT, 'dist/src/bootstrap.js'));
  const { loadConfig } = require(path.join(ROOT, 'dist/src/app-config.js'));
  const { CampaignIndexService } = require(path.join(ROOT, 'dist/src/serving/campaign-index.service.js'));
  const { StatsWriterService } = require(path.join(ROOT, 'dist/src/stats/stats-writer.service.js'));
  const app = await createApp(loadConfig(process.env));
  try {
    const index = app.get(CampaignIndexService);
    const stats = app.get(StatsWriterService);
    const campaigns = index.ranked;
    if (campaigns.length === 0) throw new Error(`no servable campaigns in ${process.env.DATABASE_URL}: seed it with bench/serving.js first`);
    process.stdout.write(`${campaigns.length} servable campaigns in ${process.env.DATABASE_URL}\n`);
    for (let round = 1; round <= 3; round++) {
      const refresh = await timed(() => index.refresh());
      process.stdout.write(`index refresh, round ${round}: ${refresh.ms.toFixed(0)} ms, longest block ${refresh.longestBlockMs.toFixed(1)} ms\n`);
    }
    const blocks = ['bench-loop-block-0', 'bench-loop-block-1'];
    for (let round = 1; round <= 3; round++) {
      const now = Date.now();
      const records = Array.from({ length: ROWS }, (_, i) => ({
        campaignId: campaigns[i % campaigns.length].id,
        adBlockId: blocks[Math.floor(i / campaigns.length) % blocks.length],
        costMicros: 0,
        earningsMicros: 0,
      }));
      stats.recordImpressions(records, now);
      const flush = await timed(() => stats.flush());
      process.stdout.write(`stats flush of ${ROWS} rows, round ${round}: ${flush.ms.toFixed(0)} ms, longest block ${flush.longestBlockMs.toFixed(1)} ms\n`);
    }
  } finally {
    await app.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`loop-blocks bench failed: ${error.stack}\n`);
    process.exit(1);
  },
);
