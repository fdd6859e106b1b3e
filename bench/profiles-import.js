'use strict';
/**
 * `npm run bench:profiles [-- --count 1000000 --concurrency 4 --chunk 1000 --separate-worker]`: profile import through the public API on the
 * MySQL + Redis profile. Starts the built service (dist/) on a fresh database `adnet_profiles_bench`, then
 *   1. uploads one batch of 5000 full records and times it until its status is `done` (target ≤ 1 s);
 *   2. uploads `--count` generated profiles (default 1,000,000) in batches of 5000, `--concurrency` uploads at a
 *      time, and reports the accepted records/s and the time until every batch is `done` (target 1M ≤ 60 s).
 * `--chunk` sets PROFILE_CHUNK_SIZE; `--separate-worker` runs the API with QUEUE_WORKERS=false beside one
 * `start:worker` process (two Node threads instead of one). BENCH_DATABASE_URL / BENCH_REDIS_URL pick the servers; the service's LOG_LEVEL is BENCH_LOG_LEVEL (warn).
 */
const path = require('node:path');
const { ROOT, startServer, sleep } = require('./lib');

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')).join('\n');
}

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : fallback;
};
const COUNT = option('count', 1_000_000);
const CONCURRENCY = option('concurrency', 4);
const CHUNK = option('chunk', 1000);
const SEPARATE_WORKER = args.includes('--separate-worker');
const BATCH = 5000;
const DATABASE_URL = process.env.BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306/adnet_profiles_bench';
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const REDIS_PREFIX = 'adnet-bench-profiles:';
const PORT = 3997;
const SERVICE = `http://127.0.0.1:${PORT}`;
const ADMIN_KEY = 'bench-admin-key-0123456789abcdef';

const say = (line) => process.stdout.write(`${line}\n`);

async function resetStores() {
  const mysql = require('mysql2/promise');
  const url = new URL(DATABASE_URL);
  const database = url.pathname.slice(1);
  url.pathname = '/';
  const connection = await mysql.createConnection({ uri: url.toString() });
  await connection.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await connection.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await connection.end();
  const { Redis } = require('ioredis');
  const redis = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${REDIS_PREFIX}*`, 'COUNT', 10_000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
}

async function api(method, route, key, body) {
  const response = await fetch(`${SERVICE}${route}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await response.json();
  if (response.status !== 200) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json.data;
}

/** The n-th generated profile: every field of docs/CONTRACT.md §8 present, as an integrator would upload them. */
function profile(n) {
  const wallet = n % 3 !== 0;
  return {
    messengerUserId: `${5_000_000_000 + n}`,
    ipAddress: `${1 + (n % 223)}.${(n >> 8) & 255}.${(n >> 16) & 255}.${n & 255}`,
    ...(wallet ? { walletAddress: `EQ${n.toString(16).padStart(46, '0')}`, walletClassify: ['primary', 'evm', 'alt'][n % 3] } : {}),
    isPremium: n % 5 === 0,
    isHighValue: n % 11 === 0,
    walletHasBalance: wallet && n % 2 === 0,
    language: ['en', 'de', 'ru', 'pt', 'es'][n % 5],
  };
}

const batchBody = (from, size) => JSON.stringify({ list: Array.from({ length: size }, (_, k) => profile(from + k)) });

async function upload(key, body) {
  const response = await fetch(`${SERVICE}/api/v2/openapi/user/profile/batch`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body,
  });
  const json = await response.json();
  if (response.status !== 200) throw new Error(`batch: ${response.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json.data.batchId;
}

async function waitDone(key, batchId) {
  for (;;) {
    const status = await api('GET', `/api/v2/openapi/user/profile/batch/status?batchId=${batchId}`, key);
    if (status.status === 'done') return status;
    if (status.status === 'failed') throw new Error(`batch ${batchId} failed: ${status.error}`);
    await sleep(20);
  }
}

async function main() {
  say(
    `profile import bench: ${COUNT.toLocaleString('en')} profiles in batches of ${BATCH}, ${CONCURRENCY} uploads at a time, chunks of ${CHUNK}, ${SEPARATE_WORKER ? 'API + separate worker process' : 'one process (API works the queue)'}; MySQL ${DATABASE_URL.replace(/\/\/[^@]*@/, '//')}, Redis ${REDIS_URL}`,
  );
  await resetStores();
  const env = { DATABASE_URL, REDIS_URL, REDIS_PREFIX, PROFILE_CHUNK_SIZE: String(CHUNK), LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'warn' };
  const service = await startServer(
    'service',
    path.join(ROOT, 'dist/src/main.js'),
    {
      ...env,
      PORT: String(PORT),
      HOST: '127.0.0.1',
      ADMIN_API_KEY: ADMIN_KEY,
      RATE_LIMIT_PER_SECOND: '0',
      QUEUE_WORKERS: SEPARATE_WORKER ? 'false' : 'true',
    },
    `${SERVICE}/health`,
    '/tmp/adnet-bench-profiles-service.log',
  );
  let worker = null;
  if (SEPARATE_WORKER) {
    const { spawn } = require('node:child_process');
    const fs = require('node:fs');
    const out = fs.openSync('/tmp/adnet-bench-profiles-worker.log', 'w');
    worker = spawn(process.execPath, [path.join(ROOT, 'dist/src/worker.js')], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', out, out] });
    process.on('exit', () => worker.kill('SIGTERM'));
  }
  try {
    const publisher = (await api('POST', '/api/v2/admin/accounts', ADMIN_KEY, { name: 'Bench publisher', roles: ['publisher'] })).apiKey;
    const rows = [];

    // 1. one batch of 5000, alone: upload to done (the first-ever batch also warms the process up)
    for (const [label, from] of [
      ['warm-up batch of 5000 (new users)', 10_000_000],
      ['one batch of 5000 (new users)', 20_000_000],
      ['one batch of 5000 (same users again: updates)', 20_000_000],
    ]) {
      const body = batchBody(from, BATCH);
      const started = performance.now();
      const batchId = await upload(publisher, body);
      const accepted = performance.now();
      await waitDone(publisher, batchId);
      const done = performance.now();
      rows.push([
        label,
        `${(accepted - started).toFixed(0)} ms`,
        `${(done - started).toFixed(0)} ms`,
        `${Math.round(BATCH / ((done - started) / 1000)).toLocaleString('en')}/s`,
      ]);
    }

    // 2. COUNT profiles, CONCURRENCY uploads at a time, then wait until all are applied
    const started = performance.now();
    const batchIds = [];
    let next = 0;
    const uploader = async () => {
      for (;;) {
        const from = next;
        next += BATCH;
        if (from >= COUNT) return;
        batchIds.push(await upload(publisher, batchBody(from, Math.min(BATCH, COUNT - from))));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, uploader));
    const uploaded = performance.now();
    for (const batchId of batchIds) await waitDone(publisher, batchId);
    const applied = performance.now();
    const seconds = (applied - started) / 1000;
    rows.push([
      `${COUNT.toLocaleString('en')} profiles, ${batchIds.length} batches`,
      `${((uploaded - started) / 1000).toFixed(1)} s (${Math.round(COUNT / ((uploaded - started) / 1000)).toLocaleString('en')}/s)`,
      `${seconds.toFixed(1)} s`,
      `${Math.round(COUNT / seconds).toLocaleString('en')}/s`,
    ]);
    say('');
    say(table([['run', 'all accepted after', 'all applied after', 'records/s applied'], ...rows]));
  } finally {
    worker?.kill('SIGTERM');
    await service.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
