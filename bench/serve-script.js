'use strict';
/**
 * `node bench/serve-script.js`: Redis' own CPU for the ad fetch's serve script (serve-many.lua, with its billing step
 * bill-lease.lua), per ad request, out of INFO commandstats: the whole EVALSHA, and the commands the script calls
 * (how many and their time).
 * Sends SERVE_SCRIPT_CALLS calls (3,000) one after the other, each of 10 requests offering 8 candidates (ad ids drawn
 * with a skew over 200 campaigns, as ranked lists repeat the top campaigns), limit 5, no caps, every campaign's lease
 * holding plenty, through the service's own EncodedScript. With a second script file as argument it measures that
 * one too, alternately, four times each (to compare a changed script with the built one). Uses database 7 of
 * SERVE_SCRIPT_REDIS_URL (redis://127.0.0.1:6379), flushed before each measurement. Needs a built service (`npm run build`).
 *   node bench/serve-script.js [other-serve-many.lua]
 */
const fs = require('node:fs');
const path = require('node:path');
const { Redis } = require('ioredis');

const ROOT = path.join(__dirname, '..');
const SCRIPTS = path.join(ROOT, 'dist/src/serving/state/scripts');
const { EncodedArguments, EncodedScript } = require(path.join(ROOT, 'dist/src/redis/encoded-script.js'));
const REDIS_URL = `${process.env.SERVE_SCRIPT_REDIS_URL || 'redis://127.0.0.1:6379'}/7`;
const CALLS = Number(process.env.SERVE_SCRIPT_CALLS || 3000);
const REQUESTS_PER_CALL = 10;
const CANDIDATES = 8;
const CAMPAIGNS = 200;
const DAY = '2026-11-27';
const HOLDER_FIELD = `holder-1|${DAY}`;

/** A serve script's text as the service loads it (load-script.ts fills the same placeholders). */
function scriptText(file) {
  return fs
    .readFileSync(file, 'utf8')
    .replace('{{BILL_LEASE}}', fs.readFileSync(path.join(SCRIPTS, 'bill-lease.lua'), 'utf8'))
    .replace(/\{\{USER_LOG_FIELD\}\}/g, '#hour')
    .replace(/\{\{USER_CAP_WINDOW_MS\}\}/g, '3600000');
}

/** One call's arguments, laid out as RedisServeState.serveGroup lays them out on a single Redis server. */
function callArguments(firstUser) {
  const call = new EncodedArguments('bench:');
  call.arg(25 * 3600_000);
  call.arg(REQUESTS_PER_CALL);
  call.arg('1');
  const entries = new Map();
  for (let r = 0; r < REQUESTS_PER_CALL; r++) {
    const user = `user-${(firstUser + r) % 10_000}`;
    call.key(`excls:{u:${user}}`);
    call.key(`imps:{u:${user}}:block-1`);
    call.key(`fcaps:{u:${user}}`);
    const campaigns = [...new Set(Array.from({ length: CANDIDATES }, () => Math.floor(Math.random() ** 3 * CAMPAIGNS)))];
    call.arg(Date.now());
    call.arg(5);
    call.arg(0);
    call.arg('');
    call.arg('0');
    call.arg(campaigns.length);
    for (const campaign of campaigns) call.recurringArg(`ad_${campaign}`);
    for (const campaign of campaigns) {
      if (!entries.has(campaign)) entries.set(campaign, entries.size + 1);
      call.arg(entries.get(campaign));
    }
  }
  for (const campaign of entries.keys()) {
    call.recurringKey(`leases:{c:${campaign}}`);
    call.recurringKey(`spend:{c:${campaign}}`);
    call.recurringKey(`dspend:{c:${campaign}}:${DAY}`);
    call.recurringArg(HOLDER_FIELD);
    call.arg(1000);
  }
  return call;
}

/** One measurement from an empty database, so that each script meets the same state. */
async function measure(redis, file) {
  await redis.flushdb();
  for (let campaign = 0; campaign < CAMPAIGNS; campaign++) await redis.hset(`leases:{c:${campaign}}`, HOLDER_FIELD, 1e15);
  const script = new EncodedScript(scriptText(file));
  let user = 0;
  const send = () => script.run(redis, callArguments((user += REQUESTS_PER_CALL)));
  for (let i = 0; i < 300; i++) await send();
  await redis.config('RESETSTAT');
  for (let i = 0; i < CALLS; i++) await send();
  const stats = await redis.info('commandstats');
  const countsOf = (command) => (stats.match(new RegExp(`cmdstat_${command}:calls=(\\d+),usec=(\\d+)`)) ?? [0, 0, 0]).slice(1).map(Number);
  const commands = ['hset', 'hget', 'hmget', 'hincrby', 'hdel', 'pexpire', 'exists', 'incrby'].map(countsOf);
  const perRequest = (total) => (total / CALLS / REQUESTS_PER_CALL).toFixed(1);
  return {
    script: perRequest(countsOf('evalsha')[1]),
    inner: perRequest(commands.reduce((sum, [, usec]) => sum + usec, 0)),
    calls: perRequest(commands.reduce((sum, [calls]) => sum + calls, 0)),
  };
}

async function main() {
  const redis = new Redis(REDIS_URL, { keyPrefix: 'bench:' });
  const files = [path.join(SCRIPTS, 'serve-many.lua'), ...process.argv.slice(2).map((file) => path.resolve(file))];
  const rounds = files.length > 1 ? 4 : 1;
  for (let round = 0; round < rounds; round++) {
    for (const file of files) {
      const { script, inner, calls } = await measure(redis, file);
      console.log(`${path.relative(ROOT, file)}: per ad request ${script} µs of Redis in the script, ${inner} of them in the ${calls} commands it calls`);
    }
  }
  await redis.flushdb();
  await redis.quit();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
