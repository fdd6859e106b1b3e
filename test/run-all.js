#!/usr/bin/env node
/**
 * `npm test` and `npm run test:ci`: every test stage of the project, each run to its end even when another failed,
 * then one closing line `N passed, M failed` over all of them (exit 1 when M > 0 or a stage could not run). Every
 * stage that does not run says so and why, in the run and again at the end, and every stage line says how long it took.
 *
 * Stages, in three steps (the stages of step 1 run side by side: they share no database, port or file):
 *   1. unit            the specs beside the code (src/, scripts/) and the SDK's own (sdk/test/)
 *      admin unit      the panel's Vitest specs
 *      build           `npm run build` when a source changed since the last one (the start-up e2e and the panel's
 *                      browser e2e run the built application; built here once, before both)
 *   2. e2e embedded    test/e2e on SQLite and the in-process state, in parallel workers (one SQLite file per app)
 *      admin browser   the panel's Playwright e2e in Debian's Chromium, against a built server of its own
 *   3. e2e mysql       test/e2e on MariaDB/MySQL + Redis, in parallel workers, a database per worker; its read-replica
 *                      file on the private primary + replica of TEST_REPLICATION_PRIMARY_URL / TEST_REPLICATION_REPLICA_URL
 *      e2e cluster     the Redis-state files again on a Redis Cluster, one file at a time (each starts on an empty cluster)
 *      reliability     several processes and faults on a private MariaDB + Redis (test/reliability/)
 *      bench smoke     `npm run bench`'s scripts at toy sizes (test/bench-smoke.js)
 *   (steps 2 and 3 one stage after another: the browser beside the e2e workers starved the files that count
 *   within a second on two cores, and the MySQL stages share the test database server and Redis.)
 * A stage run beside the one in the foreground keeps its output until it ends, then prints it whole.
 *
 * Without CI: steps 1 and 2 without the browser stage (TEST_BROWSER=true adds it; it needs Chromium), and the MySQL
 * stage when TEST_DATABASE_URL or TEST_REDIS_URL is set. With CI=true (`npm run test:ci`, and `.ci/run`) all of them,
 * and a missing Chromium, MariaDB, Redis, cluster (TEST_REDIS_CLUSTER_NODES) or replica (TEST_REPLICATION_*) fails
 * the run instead of skipping.
 * TEST_BROWSER=true, TEST_RELIABILITY=true and TEST_BENCH_SMOKE=true run those stages without CI. E2E_WORKERS sets the e2e workers.
 * Arguments after `--` go to every Jest stage (e.g. `npm test -- --testPathPatterns clicks`).
 */
const { spawn } = require('node:child_process');
const { existsSync, mkdtempSync, readFileSync, rmSync, statSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const CI = process.env.CI === 'true';
const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const jestBin = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const extraArgs = process.argv.slice(2);
/** The e2e files are mostly waiting on I/O: more workers than the two cores of a small machine still pay. */
const E2E_WORKERS = process.env.E2E_WORKERS || '4';
const reportDir = mkdtempSync(path.join(tmpdir(), 'adnet-test-run-'));
const runStarted = Date.now();

/** The e2e files whose behaviour rests on the Redis state (scripts, leases, queues, pub/sub): run again on a cluster. */
const CLUSTER_E2E_FILES = [
  'serving-state',
  'serving',
  'clicks',
  'campaign-frequency-cap',
  'concurrency',
  'exchange',
  'queues',
  'profiles-publishers',
  'abuse/billing',
  'abuse/frequency-caps',
  'delivery-diagnosis',
  'pacing',
  'optimization',
  'metrics',
  'compat-ton-ai-sdk',
].map((name) => `test/e2e/${name}.e2e-spec.ts`);

const duration = (ms) => {
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
};

/**
 * Where a stage writes: the console (the stage in the foreground), or a buffer printed whole when the stage ends
 * (a stage run beside it), so that the output of two stages never interleaves.
 */
function output(label, beside) {
  const chunks = [];
  const write = (text) => (beside ? chunks.push(text) : process.stdout.write(text));
  write(`\n=== ${label}${beside ? ' (run beside the other stages; its output as it ended)' : ''} ===\n`);
  return {
    beside,
    write,
    flush: () => beside && process.stdout.write(chunks.join('')),
  };
}

/** The results in the order the stages are listed, whatever order they end in. */
const results = [];
function slot() {
  const index = results.push(null) - 1;
  return (result) => (results[index] = result);
}

function skip(label, reason) {
  const out = output(label, false);
  out.write(`skipped: ${reason}\n`);
  results.push({ label, skipped: reason });
}

/** A stage that cannot run where CI needs it: counted as one failure. */
function missing(label, reason) {
  output(label, false);
  process.stderr.write(`FAILED: ${reason}\n`);
  results.push({ label, passed: 0, failed: 1, note: reason });
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** The process groups of the stages running now: an interrupt of this run stops them all. */
const running = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const child of running) {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    }
    process.exit(1);
  });
}

/** How long a Jest run may stay alive once its report is written (an open handle would keep it alive for good). */
const EXIT_GRACE_MS = 30_000;
/** A Jest stage that has written no report in this time is stopped and counted as failed. */
const STAGE_LIMIT_MS = Number(process.env.TEST_STAGE_LIMIT_MINUTES || 30) * 60_000;

/**
 * Runs a command in a process group of its own (so that a stop takes its workers too) and resolves with its exit
 * status. With `report`, it is a Jest run: resolved with `lingered` when it was stopped because it stayed alive
 * EXIT_GRACE_MS after writing its report, or `timedOut` when it wrote none within STAGE_LIMIT_MS. Jest waits forever
 * on a handle a test left open; this bounds that wait without --forceExit, and says so in the summary.
 */
function runCommand(command, args, out, { env = {}, cwd = root, report } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      stdio: out.beside ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      detached: true,
      env: { ...process.env, ...env },
    });
    running.add(child);
    if (out.beside) {
      child.stdout.on('data', (chunk) => out.write(String(chunk)));
      child.stderr.on('data', (chunk) => out.write(String(chunk)));
    }
    const started = Date.now();
    let reportSeenAt = null;
    let stoppedFor = null;
    const kill = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const stop = (reason) => {
      stoppedFor = reason;
      if (reason !== 'lingered') return kill();
      // what holds it: the preloaded report-open-handles.js prints its handles, then the stop
      try {
        process.kill(child.pid, 'SIGUSR2');
      } catch {
        // gone meanwhile
      }
      setTimeout(kill, 1000);
    };
    const watch = report
      ? setInterval(() => {
          if (stoppedFor !== null) return;
          if (reportSeenAt === null && existsSync(report) && statSync(report).size > 0) reportSeenAt = Date.now();
          if (reportSeenAt !== null && Date.now() - reportSeenAt > EXIT_GRACE_MS) stop('lingered');
          else if (reportSeenAt === null && Date.now() - started > STAGE_LIMIT_MS) stop('timedOut');
        }, 1000)
      : null;
    child.on('exit', (status) => {
      if (watch) clearInterval(watch);
      running.delete(child);
      const done = () => resolve({ status, lingered: stoppedFor === 'lingered', timedOut: stoppedFor === 'timedOut' });
      // the last output still in the pipes; a process the stage left behind may hold them open: not waited for long
      if (out.beside) Promise.race([new Promise((closed) => child.once('close', closed)), new Promise((later) => setTimeout(later, 2000))]).then(done);
      else done();
    });
  });
}

/** A Jest run; its counts come from Jest's JSON report. A run that reported nothing counts as one failure. */
async function jestStage(label, args, { env = {}, config = 'jest.config.js', beside = false } = {}) {
  const record = slot();
  const started = Date.now();
  const out = output(label, beside);
  const report = path.join(reportDir, `${results.length}-${Math.random().toString(36).slice(2)}.json`);
  const preload = `--require ${path.join(__dirname, 'support', 'report-open-handles.js')}`;
  const result = await runCommand(process.execPath, [jestBin, '--config', config, ...args, ...extraArgs, '--json', '--outputFile', report], out, {
    env: { ...env, NODE_OPTIONS: [process.env.NODE_OPTIONS, preload].filter(Boolean).join(' ') },
    report,
  });
  const ms = Date.now() - started;
  const json = readJson(report);
  if (!json) {
    const why = result.timedOut ? `no report within ${STAGE_LIMIT_MS / 60_000} min: stopped` : `Jest exited ${result.status} without a report`;
    out.flush();
    record({ label, passed: 0, failed: 1, note: why, ms });
    return;
  }
  // A file that failed to run (a throwing beforeAll, a syntax error) has no failed test of its own.
  const brokenFiles = json.testResults.filter((file) => file.status === 'failed' && file.assertionResults.every((test) => test.status !== 'failed')).length;
  const exitedBadly = !result.lingered && result.status !== 0;
  const failed = json.numFailedTests + brokenFiles + (exitedBadly && json.numFailedTests + brokenFiles === 0 ? 1 : 0);
  // The verdicts are in the report; a process kept alive by a leaked handle is told, not counted as a failed test.
  const note = result.lingered ? `Jest was still running ${EXIT_GRACE_MS / 1000} s after its report (an open handle): stopped` : undefined;
  if (note) out.write(`\n${note}\n`);
  out.flush();
  // Tests a file skips on this profile (MySQL-only specs on SQLite, say), named so a skip is never silent.
  const skippedFiles = json.testResults
    .filter((file) => file.assertionResults.some((test) => test.status === 'pending' || test.status === 'skipped'))
    .map((file) => path.relative(root, file.name));
  record({ label, passed: json.numPassedTests, failed, pending: json.numPendingTests, skippedFiles, note, ms });
}

/** A command judged by its exit code alone: one check. Resolves with whether it passed. */
async function commandStage(label, command, args, { beside = false, env = {} } = {}) {
  const record = slot();
  const started = Date.now();
  const out = output(label, beside);
  const result = await runCommand(command, args, out, { env });
  out.flush();
  record({ label, passed: result.status === 0 ? 1 : 0, failed: result.status === 0 ? 0 : 1, ms: Date.now() - started });
  return result.status === 0;
}

function e2eArgs(workers, files = []) {
  const args = ['--selectProjects', 'e2e', workers === 1 ? '--runInBand' : `--maxWorkers=${workers}`, ...files];
  if (existsSync(chromium) || CI) return args;
  process.stdout.write(`(the SDK browser e2e needs Chromium at ${chromium} (apt-get install -y chromium): left out, as CI is not set)\n`);
  return [...args, '--testPathIgnorePatterns', 'sdk-browser\\.e2e-spec\\.ts$'];
}

async function vitestStage({ beside }) {
  const label = 'admin panel unit tests (Vitest)';
  const record = slot();
  const started = Date.now();
  const out = output(label, beside);
  const report = path.join(reportDir, 'vitest.json');
  const vitest = await runCommand(
    process.execPath,
    [path.join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
    out,
    { cwd: path.join(root, 'admin-ui') },
  );
  out.flush();
  const json = readJson(report);
  const ms = Date.now() - started;
  if (json) record({ label, passed: json.numPassedTests, failed: json.numFailedTests + (vitest.status !== 0 && json.numFailedTests === 0 ? 1 : 0), ms });
  else record({ label, passed: 0, failed: 1, note: `Vitest exited ${vitest.status} without a report`, ms });
}

/** The panel's browser e2e on the build step 1 made (its global setup starts the built application). */
async function playwrightStage({ beside, built }) {
  const label = 'admin panel browser e2e (Playwright + Chromium)';
  if (!CI && process.env.TEST_BROWSER !== 'true') {
    // four minutes of Chromium on two cores: a newcomer's `npm test` stays in minutes; CI and `npm run test:ci` run it
    return skip(label, 'set CI=true or TEST_BROWSER=true, or run npm run test:admin:e2e (it takes about 4 minutes)');
  }
  if (!existsSync(chromium)) {
    const reason = `needs Chromium at ${chromium} (apt-get install -y chromium)`;
    if (CI) missing(label, reason);
    else skip(label, `${reason}; CI is not set`);
    return;
  }
  if (!built) return missing(label, 'the build failed (see the build stage)');
  const record = slot();
  const started = Date.now();
  const out = output(label, beside);
  const report = path.join(reportDir, 'playwright.json');
  const playwright = await runCommand(
    process.execPath,
    [
      path.join(root, 'node_modules', '@playwright', 'test', 'cli.js'),
      'test',
      '-c',
      path.join('admin-ui', 'e2e', 'playwright.config.ts'),
      '--reporter=list,json',
    ],
    out,
    { env: { PLAYWRIGHT_JSON_OUTPUT_NAME: report } },
  );
  out.flush();
  const stats = readJson(report)?.stats;
  const ms = Date.now() - started;
  if (stats) {
    const failed = stats.unexpected + (playwright.status !== 0 && stats.unexpected === 0 ? 1 : 0);
    record({ label, passed: stats.expected + stats.flaky, failed, pending: stats.skipped, ms });
  } else record({ label, passed: 0, failed: 1, note: `Playwright exited ${playwright.status} without a report`, ms });
}

async function unreachable() {
  const mysql = require('mysql2/promise');
  const Redis = require('ioredis');
  const databaseUrl = process.env.TEST_DATABASE_URL || 'mysql://root@127.0.0.1:3306/test';
  const redisUrl = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
  const problems = [];
  try {
    const connection = await mysql.createConnection({ uri: databaseUrl, connectTimeout: 5000 });
    await connection.query('SELECT 1');
    await connection.end();
  } catch (error) {
    problems.push(`database ${databaseUrl.replace(/\/\/[^@]*@/, '//***@')}: ${error.message}`);
  }
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 5000, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    problems.push(`redis ${redisUrl}: ${error.message}`);
  } finally {
    redis.disconnect();
  }
  return problems;
}

async function serviceStages() {
  const mysqlLabel = 'e2e tests, MySQL + Redis profile';
  const clusterLabel = 'e2e tests on a Redis Cluster: the Redis-state files';
  const wanted = CI || Boolean(process.env.TEST_DATABASE_URL || process.env.TEST_REDIS_URL);
  if (!wanted) {
    skip(mysqlLabel, 'set CI=true (npm run test:ci) or TEST_DATABASE_URL / TEST_REDIS_URL');
    skip(clusterLabel, 'runs with the MySQL + Redis profile');
    return;
  }
  const problems = await unreachable();
  if (problems.length > 0) {
    missing(mysqlLabel, `MySQL + Redis required but unreachable: ${problems.join('; ')}`);
    return;
  }
  // test/e2e/read-replicas.e2e-spec.ts runs within the stage below on the primary + replica .ci/run starts
  // (scripts/mariadb-replica.sh); without them the file skips itself, which CI does not accept.
  const replicaLabel = 'e2e on a MariaDB primary + replica: reports, lists and series from the replica';
  if (!process.env.TEST_REPLICATION_PRIMARY_URL || !process.env.TEST_REPLICATION_REPLICA_URL) {
    const reason = 'needs TEST_REPLICATION_PRIMARY_URL and TEST_REPLICATION_REPLICA_URL (scripts/mariadb-replica.sh start)';
    if (CI) missing(replicaLabel, `CI=true ${reason}`);
    else skip(replicaLabel, reason);
  }
  // On one Redis server, the profile's default: .ci/run exports the cluster's nodes for the stage after this one, and
  // they must not turn this run into a second cluster run (the single-server paths would go untested).
  await jestStage(mysqlLabel, e2eArgs(E2E_WORKERS), { env: { TEST_PROFILE: 'mysql', TEST_REDIS_CLUSTER_NODES: '' } });
  const clusterNodes = process.env.TEST_REDIS_CLUSTER_NODES;
  if (clusterNodes) {
    await jestStage(`${clusterLabel} (${clusterNodes})`, e2eArgs(1, CLUSTER_E2E_FILES), { env: { TEST_PROFILE: 'mysql' } });
  } else if (CI) {
    missing(clusterLabel, 'CI=true needs TEST_REDIS_CLUSTER_NODES (scripts/redis-cluster.sh start)');
  } else {
    skip(clusterLabel, 'start one with scripts/redis-cluster.sh start and set TEST_REDIS_CLUSTER_NODES');
  }
}

async function reliabilityStage() {
  const label = 'reliability: 2 APIs + 1 worker under load and faults (private MariaDB + Redis)';
  if (!CI && process.env.TEST_RELIABILITY !== 'true') return skip(label, 'set CI=true or TEST_RELIABILITY=true (it takes minutes)');
  await jestStage(label, [], { config: path.join('test', 'reliability', 'jest.config.js') });
}

async function benchSmokeStage(built) {
  const label = 'bench smoke: bench/serving.js and bench/scale.js at toy sizes (figures not judged)';
  if (!CI && process.env.TEST_BENCH_SMOKE !== 'true') return skip(label, 'set CI=true or TEST_BENCH_SMOKE=true (needs MariaDB, Redis and the build)');
  if (!built) return missing(label, 'the build failed (see the build stage)');
  await commandStage(label, process.execPath, [path.join(root, 'test', 'bench-smoke.js')]);
}

function summary() {
  const passed = results.reduce((sum, r) => sum + (r.passed ?? 0), 0);
  const failed = results.reduce((sum, r) => sum + (r.failed ?? 0), 0);
  process.stdout.write('\n=== summary ===\n');
  for (const r of results) {
    if (r.skipped) process.stdout.write(`  skipped  ${r.label}: ${r.skipped}\n`);
    else {
      const pending = r.pending ? `, ${r.pending} skipped by their file (${r.skippedFiles?.join(', ') ?? 'see above'})` : '';
      const note = r.note ? ` (${r.note})` : '';
      const took = r.ms === undefined ? '' : ` [${duration(r.ms)}]`;
      process.stdout.write(`  ${r.failed > 0 ? 'FAILED ' : 'passed '}  ${r.label}: ${r.passed} passed, ${r.failed} failed${pending}${note}${took}\n`);
    }
  }
  process.stdout.write(`all stages: ${duration(Date.now() - runStarted)} (step 1 runs its stages side by side: it lasts as long as its longest stage)\n`);
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  rmSync(reportDir, { recursive: true, force: true });
  process.exit(failed > 0 ? 1 : 0);
}

(async () => {
  // 1. unit specs in the foreground; the panel's specs and the build beside them
  const [, , built] = await Promise.all([
    jestStage('unit tests (service and SDK)', ['--selectProjects', 'unit', 'sdk']),
    vitestStage({ beside: true }),
    commandStage('build (API and admin panel), when a source changed', process.execPath, [path.join(root, 'scripts', 'build-if-stale.js')], { beside: true }),
  ]);
  // 2. the e2e suite, then the panel's browser e2e on a server of its own. Not side by side: on two cores Chromium
  // beside the e2e workers slowed the files that count within a second (rate limits, the key cache, the SDK's
  // countdowns) until they failed.
  await jestStage('e2e tests, embedded profile (SQLite, in-process state)', e2eArgs(E2E_WORKERS), { env: { TEST_PROFILE: 'embedded' } });
  await playwrightStage({ beside: false, built });
  // 3. what needs the services, one after another
  await serviceStages();
  await reliabilityStage();
  await benchSmokeStage(built);
  summary();
})().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
