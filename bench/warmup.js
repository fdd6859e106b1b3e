'use strict';
/**
 * Time to full speed: how soon after a fresh service process first answers `/health` it serves ads as fast as it
 * does once warm. Not part of the service.
 *
 * `measureWarmup(options)` starts the service (`dist/src/main.js`, with `npm start`'s node flags) on a database that
 * is already seeded, polls `/health` every 10 ms, and the moment it answers 200 loads the ad fetch with autocannon at
 * saturation for WARMUP_SECONDS (10). It answers, per 250 ms window, the requests answered and the service's CPU µs
 * per request (from /proc; the machine is shared, so CPU per request is the steadier figure) and the CPU of the
 * process's threads other than the main one (V8's compiler and GC helpers: is a slow window theirs?), with the steady state
 * taken as the last half of the run; the CPU µs per request of each 1,000 answers (what the first requests cost does not
 * depend on how busy the machine is); and the time from `/health` until a rolling second first reaches 90 % of the
 * steady throughput at no more than 110 % of its CPU per request.
 *
 * Run alone (`npm run build` first), it seeds a database of its own through the API (a first process), stops that
 * process and measures a second one on the same data (WARMUP_REUSE=1 measures again on the data of the last run):
 *   node bench/warmup.js                       # embedded profile, SQLite under /tmp/adnet-bench-warmup
 *   WARMUP_STORE=mysql BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306/adnet_warmup \
 *     BENCH_REDIS_URL=redis://127.0.0.1:6379/1 node bench/warmup.js
 * WARMUP_CAMPAIGNS (2000) and WARMUP_PORT (3996) adjust it; BENCH_SERVICE_NODE_ARGS adds node options to the measured
 * process (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`). From another script: `require('./warmup').measureWarmup`
 * with the service's environment and the autocannon requests of its ad fetch (see the function's comment).
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const autocannon = require('autocannon');
const { ROOT, startServer, sleep, startScriptNodeFlags } = require('./lib');
const seed = require('./lib/seed');

const WINDOW_MS = 250;
const REPORTED_MS = 5000;
const BATCH = 1000;

/**
 * @param {{env: Record<string, string>, port: number, requests: object[], headers?: Record<string, string>,
 *   seconds?: number, connections?: number, logFile?: string}} options `env`: the service's environment (database,
 *   Redis, admin key, PORT as `port`); `requests`: autocannon requests of the ad fetch, as bench/serving.js builds them.
 * @returns {Promise<{healthAfterMs: number, fullSpeedAfterMs: number | null, steadyRps: number, steadyCpu: number,
 *   windows: {fromMs: number, requests: number, rps: number, cpuPerRequest: number | null}[], cpuPerRequestByBatch: number[],
 *   extraCpuMs: number, lines: string[]}>}
 */
async function measureWarmup({ env, port, requests, headers, seconds = Number(process.env.WARMUP_SECONDS || 10), connections = 50, logFile }) {
  const out = fs.openSync(logFile ?? '/tmp/adnet-bench-warmup-service.log', 'w');
  const spawned = Date.now();
  const extraArgs = process.env.BENCH_SERVICE_NODE_ARGS ? process.env.BENCH_SERVICE_NODE_ARGS.split(/\s+/) : [];
  const child = spawn(process.execPath, [...startScriptNodeFlags(), ...extraArgs, path.join(ROOT, 'dist/src/main.js')], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', out, out],
  });
  const kill = () => child.kill('SIGKILL');
  process.on('exit', kill);
  try {
    const url = `http://127.0.0.1:${port}`;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}; see ${logFile}`);
      if (Date.now() - spawned > 120_000) throw new Error('service did not answer /health within 120 s');
      const ok = await fetch(`${url}/health`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ok) break;
      await sleep(10);
    }
    const healthAt = Date.now();
    const cpuOf = (stat = `/proc/${child.pid}/stat`) => {
      const fields = fs.readFileSync(stat, 'utf8').split(') ')[1].split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
    };
    const mainCpuOf = () => cpuOf(`/proc/${child.pid}/task/${child.pid}/stat`);
    const counts = [];
    const cpu = [];
    const mainCpu = [];
    let lastCpu = cpuOf();
    let lastMainCpu = mainCpuOf();
    // CPU at every BATCH answers: the cost of the first requests does not depend on how busy the machine is.
    const cpuAtBatch = [lastCpu];
    const sampler = setInterval(() => {
      const now = cpuOf();
      const mainNow = mainCpuOf();
      cpu.push(now - lastCpu);
      mainCpu.push(mainNow - lastMainCpu);
      lastCpu = now;
      lastMainCpu = mainNow;
    }, WINDOW_MS);
    await new Promise((resolve, reject) => {
      const instance = autocannon({ url, connections, duration: seconds, requests, headers, timeout: 10 }, (error) =>
        error ? reject(error) : resolve(undefined),
      );
      let answered = 0;
      instance.on('response', () => {
        const window = Math.floor((Date.now() - healthAt) / WINDOW_MS);
        counts[window] = (counts[window] ?? 0) + 1;
        if (++answered % BATCH === 0) cpuAtBatch.push(cpuOf());
      });
    });
    clearInterval(sampler);
    const windows = Array.from({ length: Math.min(cpu.length, Math.floor((seconds * 1000) / WINDOW_MS)) }, (_, i) => {
      const answered = counts[i] ?? 0;
      return {
        fromMs: i * WINDOW_MS,
        requests: answered,
        rps: (answered * 1000) / WINDOW_MS,
        cpuPerRequest: answered > 0 ? cpu[i] / answered : null,
        // the two counters are read a moment apart, so a quiet window can come out a tick below zero
        otherThreadsMs: Math.max(0, cpu[i] - mainCpu[i]) / 1000,
      };
    });
    const steady = windows.slice(Math.floor(windows.length / 2));
    const steadyRequests = steady.reduce((sum, w) => sum + w.requests, 0);
    const steadyRps = (steadyRequests * 1000) / (steady.length * WINDOW_MS);
    const steadyCpu = steady.reduce((sum, w) => sum + (w.cpuPerRequest ?? 0) * w.requests, 0) / Math.max(1, steadyRequests);
    // The first rolling second (4 windows) at 90 % of the steady rate and at most 110 % of its CPU per request.
    const perSecond = 1000 / WINDOW_MS;
    let fullSpeedAfterMs = null;
    for (let i = 0; i + perSecond <= windows.length; i++) {
      const second = windows.slice(i, i + perSecond);
      const answered = second.reduce((sum, w) => sum + w.requests, 0);
      const cpuUsed = second.reduce((sum, w) => sum + (w.cpuPerRequest ?? 0) * w.requests, 0);
      if (answered >= 0.9 * steadyRps && answered > 0 && cpuUsed / answered <= 1.1 * steadyCpu) {
        fullSpeedAfterMs = i * WINDOW_MS;
        break;
      }
    }
    const batches = cpuAtBatch.slice(1).map((cpuUsed, i) => (cpuUsed - cpuAtBatch[i]) / BATCH);
    const steadyBatches = batches.slice(Math.floor(batches.length / 2));
    const batchSteady = steadyBatches.reduce((sum, micros) => sum + micros, 0) / Math.max(1, steadyBatches.length);
    // What the first 10,000 requests cost beyond the steady price, as time of one busy core.
    const extraMs = batches.slice(0, 10).reduce((sum, micros) => sum + Math.max(0, micros - batchSteady) * BATCH, 0) / 1000;
    const lines = [
      `fresh process: /health answered ${healthAt - spawned} ms after spawn; steady state (last ${(steady.length * WINDOW_MS) / 1000} s) ${steadyRps.toFixed(0)} req/s at ${steadyCpu.toFixed(0)} CPU µs per request`,
      `per ${WINDOW_MS} ms after /health (req/s, % of steady, CPU µs/request): ` +
        windows
          .filter((w) => w.fromMs < REPORTED_MS)
          .map((w) => `${w.rps.toFixed(0)} ${((w.rps / steadyRps) * 100).toFixed(0)}% ${w.cpuPerRequest === null ? '-' : w.cpuPerRequest.toFixed(0)}`)
          .join(' | '),
      `per ${WINDOW_MS} ms after /health, CPU ms of the service's other threads (V8's compiler and GC helpers, libuv's pool): ` +
        windows
          .filter((w) => w.fromMs < REPORTED_MS)
          .map((w) => w.otherThreadsMs.toFixed(0))
          .join(' '),
      `CPU µs per request by ${BATCH} answers after /health: ${batches
        .slice(0, 10)
        .map((micros) => micros.toFixed(0))
        .join(
          ', ',
        )} (steady, the last half of the run: ${batchSteady.toFixed(0)}); the first 10,000 cost ${extraMs.toFixed(0)} ms of CPU beyond the steady price`,
      `full speed (a rolling second at >= 90 % of steady req/s and <= 110 % of its CPU per request) ${
        fullSpeedAfterMs === null ? 'NOT reached' : `from ${fullSpeedAfterMs} ms`
      } after /health (target <= 2000 ms: ${fullSpeedAfterMs !== null && fullSpeedAfterMs <= 2000 ? 'met' : 'NOT met'})`,
    ];
    return { healthAfterMs: healthAt - spawned, fullSpeedAfterMs, steadyRps, steadyCpu, windows, cpuPerRequestByBatch: batches, extraCpuMs: extraMs, lines };
  } finally {
    process.off('exit', kill);
    await new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
      child.once('exit', resolve);
      child.kill('SIGTERM');
      setTimeout(kill, 5000).unref();
    });
  }
}

/** Standalone: seed through a first process (or reuse that data, WARMUP_REUSE=1), then measure a fresh second one. */
async function main() {
  const store = process.env.WARMUP_STORE || 'embedded';
  const port = Number(process.env.WARMUP_PORT || 3996);
  const campaigns = Number(process.env.WARMUP_CAMPAIGNS || 2000);
  const dir = '/tmp/adnet-bench-warmup';
  /** @type {Record<string, string>} */
  const env = { ...seed.SERVICE_ENV };
  const seedFile = `${dir}-${store}.json`;
  const reuse = process.env.WARMUP_REUSE === '1' && fs.existsSync(seedFile);
  if (store === 'mysql') {
    const databaseUrl = process.env.BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306/adnet_warmup';
    const redisUrl = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
    if (!reuse) await seed.resetStores('mysql', { databaseUrl, redisUrl, redisPrefix: 'adnet-warmup:' });
    Object.assign(env, { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, REDIS_PREFIX: 'adnet-warmup:' });
  } else {
    if (!reuse) await seed.resetStores('embedded', { embeddedDir: dir });
    env.DATABASE_URL = `sqlite:${dir}/adnet.sqlite`;
  }
  const { publisher, adBlockId } = reuse ? JSON.parse(fs.readFileSync(seedFile, 'utf8')) : await seedData(env, port, campaigns);
  fs.writeFileSync(seedFile, JSON.stringify({ publisher, adBlockId }));
  const agents = seed.USER_AGENTS;
  const languages = seed.LANGUAGES;
  const variants = Array.from({ length: 4000 }, (_, i) => ({
    path: `/api/v2/openapi/matching/ad?adBlockId=${adBlockId}&openId=warm-user-${i}&type=messenger&limit=5`,
    headers: {
      'x-api-key': publisher,
      'user-agent': agents[i % agents.length],
      'accept-language': `${languages[i % languages.length]},en;q=0.5`,
      'x-forwarded-for': `${1 + ((i * 7) % 220)}.${(i * 13) % 256}.${(i * 31) % 256}.9`,
    },
  }));
  let next = 0;
  const requests = [{ method: 'GET', setupRequest: (request) => ({ ...request, ...variants[next++ % variants.length] }) }];
  const result = await measureWarmup({ env, port, requests });
  process.stdout.write(`warm-up (${store}, ${campaigns} campaigns):\n${result.lines.map((line) => `  ${line}`).join('\n')}\n`);
}

/** Accounts, a block and `campaigns` campaigns of mixed targeting, through the API of a first process. */
async function seedData(env, port, campaigns) {
  const base = `http://127.0.0.1:${port}`;
  const api = seed.apiOf(base);
  const seeder = await startServer(
    'service',
    path.join(ROOT, 'dist/src/main.js'),
    { ...env, PORT: String(port) },
    `${base}/health`,
    '/tmp/adnet-bench-warmup-seed.log',
  );
  try {
    const { advertisers, publisher, adBlockId } = await seed.createAccounts(api, 'Warm-up', 1);
    const now = Date.now();
    const countries = ['US', 'GB', 'DE', 'FR', 'BR', 'IN', 'JP', 'NG'];
    const languages = ['en', 'de', 'fr', 'pt', 'es'];
    await seed.createCampaigns(api, [advertisers[0].apiKey], campaigns, (i) =>
      seed.createBody(i, now, {
        name: `Warm-up campaign ${i}`,
        targeting: {
          platform: ['All', 'iOS', 'Android', 'Desktop'][i % 4],
          ...(i % 3 === 0 ? { includedRegions: [countries[i % countries.length]] } : {}),
          ...(i % 5 === 0 ? { includedLanguages: [languages[i % languages.length]] } : {}),
        },
        bidding: i % 2 === 0 ? { billingType: 'CPM', costPer: 1 + (i % 9) } : { billingType: 'CPC', costPer: (5 + (i % 10)) / 100 },
      }),
    );
    return { publisher, adBlockId };
  } finally {
    await seeder.stop();
  }
}

module.exports = { measureWarmup };

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error) => {
      process.stderr.write(`warm-up bench failed: ${error.stack}\n`);
      process.exit(1);
    },
  );
}
