'use strict';
/**
 * `node bench/probes/serve-script.js`: Redis' own CPU for the ad fetch's scripts, per ad request, out of INFO commandstats:
 * the serve script (serve-many.lua: the whole EVALSHA, and the commands it calls, how many and their time), then the
 * bill (bill.lua) as the service sends it: every BILL_EVERY_MS one call with a sum per lease served from, here one
 * call per SERVE_SCRIPT_REQUESTS_PER_BILL requests (2,000: 100 ms at 20,000 ad requests a second) over the leases
 * those requests served from.
 * Sends SERVE_SCRIPT_CALLS serve calls (3,000) one after the other, each of 10 requests offering 8 candidates (ad ids
 * drawn with a skew over 200 campaigns, as ranked lists repeat the top campaigns), limit 5, no caps, through the
 * service's own EncodedScript. With a second serve script file as argument it measures that one too, alternately, four
 * times each (to compare a changed script with the built one). Uses database 7 of SERVE_SCRIPT_REDIS_URL
 * (redis://127.0.0.1:6379), flushed before each measurement. Needs a built service (`npm run build`).
 *   node bench/probes/serve-script.js [other-serve-many.lua]
 */
const fs = require('node:fs');
const path = require('node:path');
const { Redis } = require('ioredis');

const ROOT = path.join(__dirname, '..', '..');
const SCRIPTS = path.join(ROOT, 'dist/src/serving/state/scripts');
const { EncodedArguments, EncodedScript } = require(path.join(ROOT, 'dist/src/redis/encoded-script.js'));
const REDIS_URL = `${process.env.SERVE_SCRIPT_REDIS_URL || 'redis://127.0.0.1:6379'}/7`;
const CALLS = Number(process.env.SERVE_SCRIPT_CALLS || 3000);
const REQUESTS_PER_CALL = 10;
const CANDIDATES = 8;
const CAMPAIGNS = 200;
const DAY = '2026-11-27';
const HOLDER_FIELD = `holder-1|${DAY}`;
const PRICE_MICROS = 1000;
/** Requests per bill: BILL_EVERY_MS (100 ms) at 20,000 ad requests a second. */
const REQUESTS_PER_BILL = Number(process.env.SERVE_SCRIPT_REQUESTS_PER_BILL || 2000);
const CALLS_PER_BILL = Math.max(1, Math.round(REQUESTS_PER_BILL / REQUESTS_PER_CALL));

/** A serve script's text as the service loads it (load-script.ts fills the same placeholders). */
function scriptText(file) {
  return fs
    .readFileSync(file, 'utf8')
    .replace(/\{\{USER_LOG_FIELD\}\}/g, '#hour')
    .replace(/\{\{USER_CAP_WINDOW_MS\}\}/g, '3600000');
}

/** One call's arguments, laid out as RedisServeState.serveGroup lays them out on a single Redis server. */
function callArguments(firstUser) {
  const call = new EncodedArguments('bench:');
  call.arg(25 * 3600_000);
  call.arg(REQUESTS_PER_CALL);
  const offered = [];
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
    offered.push(campaigns);
  }
  return { call, offered };
}

/** One measurement from an empty database, so that each script meets the same state. */
async function measure(redis, file) {
  await redis.flushdb();
  for (let campaign = 0; campaign < CAMPAIGNS; campaign++) await redis.hset(`leases:{c:${campaign}}`, HOLDER_FIELD, 1e15);
  const script = new EncodedScript(scriptText(file));
  let user = 0;
  /** Per bill: micro-USDT served from each campaign's lease in its window of requests. */
  const bills = [];
  const send = async () => {
    const { call, offered } = callArguments((user += REQUESTS_PER_CALL));
    const answers = await script.run(redis, call);
    if (bills.length === 0 || (user / REQUESTS_PER_CALL) % CALLS_PER_BILL === 0) bills.push(new Map());
    const window = bills[bills.length - 1];
    answers.forEach(([positions], r) => {
      for (const position of positions) window.set(offered[r][position], (window.get(offered[r][position]) ?? 0) + PRICE_MICROS);
    });
  };
  for (let i = 0; i < 300; i++) await send();
  bills.length = 0;
  await redis.config('RESETSTAT');
  for (let i = 0; i < CALLS; i++) await send();
  const serveStats = await redis.info('commandstats');
  await redis.config('RESETSTAT');
  for (const due of bills) {
    const keys = [`bill:{c:${[...due.keys()][0]}}:${Math.random()}`];
    /** @type {(string | number)[]} */
    const args = [60_000];
    for (const [campaign, micros] of due) {
      keys.push(`leases:{c:${campaign}}`, `spend:{c:${campaign}}`, `dspend:{c:${campaign}}:${DAY}`);
      args.push(HOLDER_FIELD, micros, PRICE_MICROS, 1e12, 1e12);
    }
    await redis.adnetBill(keys.length, ...keys, ...args);
  }
  const billStats = await redis.info('commandstats');
  const countsOf = (stats, command) => (stats.match(new RegExp(`cmdstat_${command}:calls=(\\d+),usec=(\\d+)`)) ?? [0, 0, 0]).slice(1).map(Number);
  const commands = ['hset', 'hget', 'hmget', 'hincrby', 'hdel', 'pexpire', 'exists', 'incrby'].map((command) => countsOf(serveStats, command));
  const perRequest = (total) => (total / CALLS / REQUESTS_PER_CALL).toFixed(1);
  return {
    script: perRequest(countsOf(serveStats, 'evalsha')[1]),
    inner: perRequest(commands.reduce((sum, [, usec]) => sum + usec, 0)),
    calls: perRequest(commands.reduce((sum, [calls]) => sum + calls, 0)),
    bill: perRequest(countsOf(billStats, 'evalsha')[1]),
    bills: bills.length,
  };
}

async function main() {
  const redis = new Redis(REDIS_URL, { keyPrefix: 'bench:' });
  redis.defineCommand('adnetBill', { lua: fs.readFileSync(path.join(SCRIPTS, 'bill.lua'), 'utf8') });
  const files = [path.join(SCRIPTS, 'serve-many.lua'), ...process.argv.slice(2).map((file) => path.resolve(file))];
  const rounds = files.length > 1 ? 4 : 1;
  for (let round = 0; round < rounds; round++) {
    for (const file of files) {
      const { script, inner, calls, bill, bills } = await measure(redis, file);
      console.log(
        `${path.relative(ROOT, file)}: per ad request ${script} µs of Redis in the script, ${inner} of them in the ${calls} commands it calls; ` +
          `the bill (bill.lua, ${bills} calls, one per ${REQUESTS_PER_BILL} requests) ${bill} µs`,
      );
    }
  }
  await redis.flushdb();
  await redis.quit();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
