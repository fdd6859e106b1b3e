'use strict';
/**
 * `npm run bench:scale` (also the last part of `npm run bench`): how the ad fetch's cost grows with the number of
 * active campaigns and uploaded profiles. First the matcher alone (bench/lib/matcher-scale.js: ns per match over the
 * service's own index at 1,000 / 10,000 / 100,000 campaigns), then, for each cell of campaigns × profiles, the
 * service on MySQL + Redis under GET /matching/ad (limit 5, the request mix of bench/serving.js): req/s, p50 and p99
 * at saturation (50 connections), p99 at a fixed 2,000 req/s (20 connections), the CPU µs per request of the
 * service, Redis, MySQL and the load generator, and the service's memory after its warm-up (resident set and V8 heap
 * used, from /proc and from /metrics) and its peak resident set, and the CPU it uses with no requests for 20 s (its
 * own background work: mostly the index refresh, which re-reads every active campaign's counters every 10 s).
 *
 * Seeding: the data only grows, so the cells run in order of profiles, then campaigns. Campaigns have the targeting
 * mix of bench/serving.js and are inserted in bulk, 500 rows per insert, as the rows CampaignsService.create writes
 * (bench/lib/seed.js campaignRow), through the campaigns entity's TypeORM repository of the build: through the
 * API, 500 campaigns took 20 s on the loaded machine. Each is inserted once: a cell with fewer campaigns than exist
 * pauses the rest (one status update per thousand rows, the same way). The service is restarted for every cell, so
 * it loads exactly the active campaigns into its index and starts with a fresh heap.
 * Profiles go through the batch upload API, 5,000 per batch, four uploads at a time.
 *
 * Environment: BENCH_SCALE_CELLS (campaigns x profiles, comma-separated; default all six:
 * 1000x10000,10000x10000,100000x10000,1000x1000000,10000x1000000,100000x1000000), BENCH_SCALE_PHASES
 * (matcher,http), BENCH_SCALE_IDLE_SECONDS (20: the idle measurement of each cell), BENCH_STORES (mysql; `mysql,embedded` adds the embedded profile: SQLite under
 * /tmp/adnet-scale-embedded, in-process state), BENCH_DURATION (seconds per run, 8), BENCH_DATABASE_URL
 * (mysql://root@127.0.0.1:3306/adnet_scale_bench; dropped and recreated), BENCH_REDIS_URL (redis://127.0.0.1:6379;
 * keys under adnet-scale-bench: are deleted), BENCH_LOG_LEVEL (info).
 */
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, startServer, load, inParallel, sleep, cpuMeter, pidOf } = require('./lib');
const seed = require('./lib/seed');
const { ADMIN_KEY, random, pick, chance, LANGUAGES, USER_AGENTS } = seed;
const matcher = require('./lib/matcher-scale');

const DATABASE_URL = process.env.BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306/adnet_scale_bench';
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const REDIS_PREFIX = 'adnet-scale-bench:';
const DURATION = Number(process.env.BENCH_DURATION || 8);
const CELLS = (process.env.BENCH_SCALE_CELLS || '1000x10000,10000x10000,100000x10000,1000x1000000,10000x1000000,100000x1000000')
  .split(',')
  .map((cell) => {
    const [campaigns, profiles] = cell.trim().split('x').map(Number);
    if (!(campaigns > 0 && profiles > 0)) throw new Error(`BENCH_SCALE_CELLS: ${cell} is not <campaigns>x<profiles>`);
    return { campaigns, profiles };
  })
  .sort((a, b) => a.profiles - b.profiles || a.campaigns - b.campaigns);
const PHASES = new Set((process.env.BENCH_SCALE_PHASES || 'matcher,http').split(','));
const STORES = (process.env.BENCH_STORES || 'mysql').split(',').map((store) => store.trim());
const EMBEDDED_DIR = '/tmp/adnet-scale-embedded';
const PORT = 3996;
const SERVICE = `http://127.0.0.1:${PORT}`;
const PROFILE_BATCH = 5000;
const FIXED_RATE = 2000;
/** Two index refreshes at the default INDEX_REFRESH_MS (BENCH_SCALE_IDLE_SECONDS). */
const IDLE_SECONDS = Number(process.env.BENCH_SCALE_IDLE_SECONDS || 20);

const say = (line) => process.stdout.write(`${line}\n`);

const api = seed.apiOf(SERVICE);

/**
 * The campaigns table through the build's own entity and data source options, behind the service's back (restart it
 * after): `insert` the rows CampaignsService.create would insert, `setStatus` pause or resume campaigns.
 */
async function withCampaigns(store, work) {
  const { DataSource } = require('typeorm');
  const { dataSourceOptions } = require(path.join(ROOT, 'dist/src/database/data-source-options'));
  const { Campaign } = require(path.join(ROOT, 'dist/src/campaigns/entities/campaign.entity'));
  const target = store === 'mysql' ? { type: 'mysql', location: DATABASE_URL } : { type: 'sqlite', location: `${EMBEDDED_DIR}/adnet.sqlite` };
  const dataSource = await new DataSource(dataSourceOptions(target, false)).initialize();
  try {
    await work(dataSource.getRepository(Campaign));
  } finally {
    await dataSource.destroy();
  }
}

async function insertCampaigns(store, from, to, accountIds, now) {
  const ids = [];
  await withCampaigns(store, async (campaigns) => {
    for (let start = from; start < to; start += 500) {
      const rows = [];
      for (let i = start; i < Math.min(to, start + 500); i++) rows.push(await seed.campaignRow(i, now, accountIds[i % accountIds.length]));
      await campaigns.insert(rows);
      ids.push(...rows.map((row) => row.id));
    }
  });
  return ids;
}

async function setStatus(store, ids, status) {
  if (ids.length === 0) return;
  const { In } = require('typeorm');
  await withCampaigns(store, async (campaigns) => {
    for (let i = 0; i < ids.length; i += 1000) await campaigns.update({ id: In(ids.slice(i, i + 1000)) }, { status });
  });
}

async function main() {
  if (PHASES.has('matcher')) {
    const results = await matcher.main();
    say('');
    say(matcher.matcherTable(results));
  }
  if (!PHASES.has('http')) return;
  const summaries = [];
  for (const store of STORES) {
    if (store !== 'mysql' && store !== 'embedded') throw new Error(`BENCH_STORES: unknown profile ${store} (mysql, embedded)`);
    summaries.push({ store, rows: await benchStore(store) });
  }
  say('');
  say('=== scale results ===');
  for (const { store, rows } of summaries) {
    say(`${store === 'mysql' ? 'MySQL + Redis' : 'embedded (SQLite)'}: GET matching/ad limit 5, ${DURATION} s per run`);
    say(scaleTable(rows));
  }
}

async function benchStore(store) {
  const storeEnv = store === 'mysql' ? { DATABASE_URL, REDIS_URL } : { DATABASE_URL: `sqlite:${EMBEDDED_DIR}/adnet.sqlite` };
  say('');
  say(`scale bench (${store}): cells ${CELLS.map((cell) => `${cell.campaigns}x${cell.profiles}`).join(', ')}; ${DURATION} s per run`);
  await seed.resetStores(store, { embeddedDir: EMBEDDED_DIR, databaseUrl: DATABASE_URL, redisUrl: REDIS_URL, redisPrefix: REDIS_PREFIX });
  const env = {
    ...seed.SERVICE_ENV,
    PORT: String(PORT),
    ...storeEnv,
    REDIS_PREFIX,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'info',
  };
  const start = () => startServer('service', path.join(ROOT, 'dist/src/main.js'), env, `${SERVICE}/health`, `/tmp/adnet-scale-service-${store}.log`, 180_000);
  let service = await start();
  const rows = [];
  try {
    const accounts = await seed.createAccounts(api, 'Scale', 20);
    const { publisher, adBlockId } = accounts;
    const advertisers = accounts.advertisers.map((account) => account.accountId);
    const addresses = seed.addressesByCountry();
    /** Campaign ids in creation order; the first `active` of them are onGoing, the rest paused. */
    const campaignIds = [];
    let active = 0;
    let profiles = 0;

    for (const cell of CELLS) {
      say('');
      say(`cell: ${cell.campaigns} campaigns, ${cell.profiles} profiles`);
      const seedStarted = Date.now();
      if (profiles < cell.profiles) {
        await seedProfiles(publisher, profiles, cell.profiles);
        say(`  profiles ${profiles} -> ${cell.profiles} in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);
        profiles = cell.profiles;
      }
      const now = Date.now();
      if (active > cell.campaigns) {
        await setStatus(store, campaignIds.slice(cell.campaigns, active), 'paused');
      } else if (active < cell.campaigns) {
        await setStatus(store, campaignIds.slice(active, Math.min(cell.campaigns, campaignIds.length)), 'onGoing');
        if (campaignIds.length < cell.campaigns) {
          const created = Date.now();
          const more = await insertCampaigns(store, campaignIds.length, cell.campaigns, advertisers, now);
          say(`  inserted ${more.length} campaigns in ${((Date.now() - created) / 1000).toFixed(1)} s`);
          campaignIds.push(...more);
        }
      }
      active = cell.campaigns;

      await service.stop();
      const restarted = Date.now();
      service = await start();
      const startSeconds = (Date.now() - restarted) / 1000;
      const row = await measureCell(store, service, publisher, adBlockId, addresses, cell);
      row.startSeconds = startSeconds;
      rows.push(row);
    }
  } finally {
    await service.stop();
  }
  return rows;
}

async function seedProfiles(publisherKey, from, to) {
  const uploads = [];
  for (let start = from; start < to; start += PROFILE_BATCH) {
    uploads.push(async () => {
      const list = Array.from({ length: Math.min(PROFILE_BATCH, to - start) }, (_, k) => seed.profileRecord(start + k));
      return (await api('POST', '/api/v2/openapi/user/profile/batch', publisherKey, { list })).batchId;
    });
  }
  await seed.profileBatchesDone(api, publisherKey, await inParallel(uploads, 4), 200);
}

/** The service's memory: resident set (now and peak) from /proc, V8 heap used from /metrics. */
async function memoryOf(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  const metrics = await (await fetch(`${SERVICE}/metrics`, { headers: { 'x-api-key': ADMIN_KEY } })).text();
  const heapUsed = Number(/^nodejs_heap_size_used_bytes (\S+)/m.exec(metrics)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024, heapUsedMb: heapUsed / 1048576 };
}

async function measureCell(store, service, publisher, adBlockId, addresses, cell) {
  const fetchPaths = Array.from({ length: 4000 }, () => {
    const user = chance(0.9) ? `bench-user-${Math.floor(random() * cell.profiles)}` : `bench-visitor-${Math.floor(random() * 1e6)}`;
    return {
      path: `/api/v2/openapi/matching/ad?adBlockId=${adBlockId}&openId=${user}&type=messenger&limit=5`,
      headers: { 'x-forwarded-for': pick(addresses).ip, 'user-agent': pick(USER_AGENTS), 'accept-language': `${pick(LANGUAGES)},en;q=0.5` },
    };
  });
  let next = 0;
  const requests = [
    {
      method: 'GET',
      setupRequest: (request) => {
        const variant = fetchPaths[next++ % fetchPaths.length];
        return { ...request, path: variant.path, headers: { 'x-api-key': publisher, ...variant.headers } };
      },
    },
  ];
  const cpu = cpuMeter({
    server: service.child.pid,
    ...(store === 'mysql' ? { redis: pidOf('redis-server'), mysql: pidOf('mariadbd') ?? pidOf('mysqld') } : {}),
    generator: process.pid,
  });
  const run = async (name, options) => {
    const measure = cpu.start();
    const result = await load({ url: SERVICE, duration: DURATION, requests, ...options });
    const used = measure(result.total);
    say(
      `  ${name}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}; ` +
        `CPU µs per request: ${Object.entries(used)
          .map(([process, micros]) => `${process} ${micros.toFixed(0)}`)
          .join(', ')}`,
    );
    return { ...result, cpu: used };
  };
  // a sample of answers: how many ads a request gets at this size
  const sample = await inParallel(
    fetchPaths.slice(0, 200).map((variant) => async () => {
      const response = await fetch(`${SERVICE}${variant.path}`, { headers: { 'x-api-key': publisher, ...variant.headers } });
      return (await response.json()).data?.ads?.length ?? 0;
    }),
    20,
  );
  const ads = sample.reduce((a, b) => a + b, 0) / sample.length;
  await load({ url: SERVICE, duration: 3, requests });
  const memory = await memoryOf(service.child.pid);
  say(`  after warm-up: RSS ${memory.rssMb.toFixed(0)} MB, heap used ${memory.heapUsedMb.toFixed(0)} MB; ${ads.toFixed(2)} ads per answer (sample of 200)`);
  const saturation = await run('saturation (50 conn)', { connections: 50 });
  const fixed = await run(`@${FIXED_RATE}/s (20 conn)`, { connections: 20, overallRate: FIXED_RATE });
  const after = await memoryOf(service.child.pid);
  // With no requests: what the process spends on its own (mostly the index refresh, every INDEX_REFRESH_MS, 10 s).
  const idle = cpuMeter({ server: service.child.pid }).start();
  await sleep(IDLE_SECONDS * 1000);
  const idleCpu = idle(1).server / (IDLE_SECONDS * 1e6);
  say(`  idle for ${IDLE_SECONDS} s: the service used ${(idleCpu * 100).toFixed(1)} % of a core`);
  // the machine's load over the runs (other work on the shared cores makes every figure slower)
  const machineLoad = require('node:os').loadavg()[0];
  say(`  peak RSS ${after.peakRssMb.toFixed(0)} MB; load average (1 min) ${machineLoad.toFixed(1)} on ${require('node:os').availableParallelism()} cores`);
  return { ...cell, ads, memory, peakRssMb: after.peakRssMb, saturation, fixed, machineLoad, idleCpu };
}

function scaleTable(rows) {
  const header = [
    'campaigns',
    'profiles',
    'ads/answer',
    'req/s',
    'p50 ms',
    'p99 ms',
    'server µs',
    'redis µs',
    'mysql µs',
    'gen µs',
    `p99 @${FIXED_RATE}`,
    `server µs @${FIXED_RATE}`,
    'RSS MB',
    'heap MB',
    'peak RSS MB',
    'start s',
    'idle CPU %',
    'load',
  ];
  const micros = (value) => (value === undefined ? '' : value.toFixed(0));
  const lines = rows.map((row) => [
    String(row.campaigns),
    String(row.profiles),
    row.ads.toFixed(2),
    row.saturation.rps.toFixed(0),
    String(row.saturation.p50),
    String(row.saturation.p99),
    micros(row.saturation.cpu.server),
    micros(row.saturation.cpu.redis),
    micros(row.saturation.cpu.mysql),
    micros(row.saturation.cpu.generator),
    String(row.fixed.p99),
    micros(row.fixed.cpu.server),
    row.memory.rssMb.toFixed(0),
    row.memory.heapUsedMb.toFixed(0),
    row.peakRssMb.toFixed(0),
    row.startSeconds.toFixed(1),
    (row.idleCpu * 100).toFixed(1),
    row.machineLoad.toFixed(1),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => line[i].length)));
  return [header, ...lines].map((cells) => cells.map((cell, i) => cell.padStart(widths[i])).join('  ')).join('\n');
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`scale bench failed: ${error.stack}\n`);
    process.exit(1);
  },
);
