#!/usr/bin/env node
/**
 * The bench on a fresh clone, at toy sizes: `npm run bench`'s two scripts (bench/serving.js, bench/scale.js) run on
 * both profiles and must print every result line the speed targets are read from (docs/PERFORMANCE.md): the ad
 * fetch against bare Fastify, its p99 at 2,000 req/s next to the bare and floor servers', the click against the
 * durable-row floor, embedded clicks against MySQL's, the warm-up after /health, two service processes against two
 * bare Fastify processes on MySQL + Redis, and the scale table with the
 * matcher's cost per campaign count. Every load run must be answered without a 4xx or 5xx. The figures themselves
 * are not judged here: one-second runs on a CI machine measure nothing (speed is judged by `npm run bench` itself,
 * never by timed assertions in tests). Needs MariaDB and Redis (run by test/run-all.js with CI=true) and the build.
 */
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const MYSQL_SERVER = (process.env.TEST_DATABASE_URL || 'mysql://root@127.0.0.1:3306/test').replace(/\/[^/]*$/, '');
const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
// Two smokes on one machine (CI's and a developer's) must not share databases or ports: BENCH_SMOKE_DATABASE names
// the one database both scripts reset in turn, BENCH_SMOKE_PORT_BASE the serving script's ports.
const SERVING_DATABASE = process.env.BENCH_SMOKE_DATABASE || 'adnet_bench_smoke';
const SCALE_DATABASE = process.env.BENCH_SMOKE_DATABASE || 'adnet_scale_smoke';

/** Lines each script must print, with their figures (a number where the bench prints one), and how many times. */
const SERVING_LINES = [
  [/^MySQL \+ Redis:$/gm, 1],
  [/^embedded \(SQLite\):$/gm, 1],
  [/^ {2}ad fetch at saturation: \d+ % of bare Fastify \(rounds: .*target >= 50 %: (met|NOT met)\)$/gm, 2],
  [/^ {2}ad fetch p99 at 2,000 req\/s: \d+ ms \(target <= 5 ms: (met|NOT met)\); bare \d+ ms, bare \+ one Redis read \d+ ms$/gm, 1],
  [/^ {2}ad fetch p99 at 2,000 req\/s: \d+ ms \(target <= 5 ms: (met|NOT met)\); bare \d+ ms$/gm, 1],
  [
    /^ {2}machine pauses at 2,000 req\/s, seen by an idle Node process beside the run: bare's \d+ pauses over 8 ms, longest \d+ ms; the ad fetch's \d+ pauses over 8 ms, longest \d+ ms$/gm,
    2,
  ],
  [/^ {2}click report at saturation: \d+ % of the durable-row floor measured in this run \(target >= 80 %: (met|NOT met)\)$/gm, 2],
  [/^ {2}click report at saturation: \d+ % of the floor with the Redis bind and bill too \(\d+ req\/s; a figure, no target\)$/gm, 1],
  [
    /^ {2}click's own I\/O on this profile: the floor with the Redis bind and bill answers \d+ % of the durable-row floor, so 3a asks the click for \d+ % of that floor \(a figure\)$/gm,
    1,
  ],
  [/^ {2}ad fetch p99 at 2,000 req\/s, second by second \(ms\): [\d, ]+; bare: [\d, ]+; bare \+ one Redis read: [\d, ]+$/gm, 1],
  [
    /^ {2}ad fetch CPU budget at 50 %: .* \(it spent \d+; bare Fastify's server spends \d+\); at the target rate all of them would keep the cores \d+ % busy, where bare Fastify's own runs kept them \d+ % busy \(the ad fetch's own saturation runs: \d+ %\)$/gm,
    2,
  ],
  [
    /^ {2}click report CPU budget at 80 % of the durable-row floor: .* \(it spent \d+; the floor's server spends \d+; the floor's Redis, database and load generator took \d+\); at the target rate all of them would keep the cores \d+ % busy, where the floor's own runs kept them \d+ % busy \(the click's own saturation runs: \d+ %\)$/gm,
    2,
  ],
  [
    /^ {2}click report at saturation, its counter transactions \(rounds\): \d+ a second, [\d.]+ clicks each, [\d.]+ ms each from sending to COMMIT answered$/gm,
    2,
  ],
  [/^ {2}full speed .* from \d+ ms after \/health \(target <= 2000 ms: (met|NOT met)\)$/gm, 2],
  [/^ {2}embedded clicks at saturation: \d+ req\/s vs \d+ on MySQL \+ Redis \(target: at least as fast: (met|NOT met)\)$/gm, 1],
  [
    /^ {2}two processes, ad fetch at saturation: \d+\/s in all \(\d+ \+ \d+\), \d+ % of two bare Fastify processes \(rounds: .*; two bare: \d+\/s\); one process in this run: \d+\/s, \d+ % of one bare Fastify; two give [\d.]+x one$/gm,
    1,
  ],
  [/^ {2}two processes, ad fetch at saturation, CPU µs per request: services \d+, Redis \d+, MySQL \d+, load generator \d+; main threads busy: .*$/gm, 1],
  [
    /^ {2}two processes, click report at saturation: \d+\/s in all \(\d+ \+ \d+\), \d+ % of two bare Fastify processes \(rounds: .*\); one process in this run: \d+\/s, .* \d+ clicks, each the first click of its impression$/gm,
    1,
  ],
];
const SCALE_LINES = [
  [/^campaigns {2}round 1 ns .*index MB$/gm, 1],
  [/^ +300 +\d+ +\d+ +\d+ /gm, 1],
  [/^ +3000 +\d+ +\d+ +\d+ /gm, 1],
  [/^=== scale results ===$/gm, 1],
  [/^ +300 +2000 +\d+\.\d\d +\d+ /gm, 1],
  [/^ +600 +2000 +\d+\.\d\d +\d+ /gm, 1],
];

function run(label, script, env) {
  process.stdout.write(`\n--- ${label} ---\n`);
  const result = spawnSync(process.execPath, [path.join(root, 'bench', script)], {
    cwd: root,
    env: { ...process.env, BENCH_REDIS_URL: REDIS_URL, BENCH_DURATION: '1', BENCH_LOG_LEVEL: 'warn', ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  const problems = result.status === 0 ? [] : [`${script} exited with ${result.status ?? result.signal}`];
  return { output: result.stdout, problems };
}

/** The result lines printed fewer times than expected (the section "=== results ===" repeats every result line). */
function missing(output, expected) {
  const results = output.lastIndexOf('=== results ===');
  const text = results >= 0 ? output.slice(results) : output;
  return expected
    .filter(([pattern, times]) => (text.match(pattern) ?? []).length < times)
    .map(([pattern, times]) => `fewer than ${times} line(s) matching ${pattern}`);
}

/** Load runs (`  <name>: <req/s> req/s, p50 …, non-2xx <n>`) that had a 4xx or 5xx answer, or too few runs. */
function refusedRuns(output, leastRuns) {
  const refused = [];
  let runs = 0;
  for (const line of output.split('\n')) {
    const row = /^ {2}(.+?): \d+ req\/s, p50 \d+ ms, p99 \d+ ms, non-2xx (\d+)/.exec(line);
    if (!row) continue;
    runs += 1;
    if (row[2] !== '0') refused.push(`${row[1]}: ${row[2]} answers not 2xx`);
  }
  if (runs < leastRuns) refused.push(`${runs} load runs printed, expected at least ${leastRuns}`);
  return refused;
}

const serving = run('bench/serving.js, both profiles, toy sizes', 'serving.js', {
  BENCH_DATABASE_URL: `${MYSQL_SERVER}/${SERVING_DATABASE}`,
  BENCH_PORT_BASE: process.env.BENCH_SMOKE_PORT_BASE || '4097',
  BENCH_ROUNDS: '1',
  BENCH_CAMPAIGNS: '300',
  BENCH_PROFILES: '2000',
  BENCH_CLICKS: '1500',
  WARMUP_SECONDS: '2',
});
const scale = run('bench/scale.js, two small cells', 'scale.js', {
  BENCH_DATABASE_URL: `${MYSQL_SERVER}/${SCALE_DATABASE}`,
  BENCH_SCALE_CELLS: '300x2000,600x2000',
  BENCH_MATCHER_CAMPAIGNS: '300,3000',
  BENCH_SCALE_IDLE_SECONDS: '2',
});
const problems = [
  ...serving.problems,
  ...missing(serving.output, SERVING_LINES),
  ...refusedRuns(serving.output, 29),
  ...scale.problems,
  ...missing(scale.output, SCALE_LINES),
  ...refusedRuns(scale.output, 4),
];
if (problems.length > 0) {
  process.stderr.write(`\nbench smoke: FAILED\n  ${problems.join('\n  ')}\n`);
  process.exit(1);
}
process.stdout.write('\nbench smoke: every result line printed, every load run answered 2xx\n');
