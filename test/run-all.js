#!/usr/bin/env node
/**
 * `npm test` and `npm run test:ci`: every test stage of the project, one after another, each run to its end even when
 * an earlier one failed, then one closing line `N passed, M failed` over all of them (exit 1 when M > 0 or a stage
 * could not run). Every stage that does not run says so and why, in the run and again at the end.
 *
 * Stages:
 *   unit            the specs beside the code (src/, scripts/) and the SDK's own (sdk/test/)
 *   e2e embedded    test/e2e on SQLite and the in-process state, in parallel workers (one SQLite file per app)
 *   admin unit      the panel's Vitest specs
 *   admin browser   the panel's Playwright e2e in Debian's Chromium (built first when a source changed)
 *   e2e mysql       test/e2e on MariaDB/MySQL + Redis, in parallel workers, a database per worker; its read-replica
 *                   file on the private primary + replica of TEST_REPLICATION_PRIMARY_URL / TEST_REPLICATION_REPLICA_URL
 *   e2e cluster     the Redis-state files again on a Redis Cluster, one file at a time (each starts on an empty cluster)
 *   reliability     several processes and faults on a private MariaDB + Redis (test/reliability/)
 *   bench smoke     `npm run bench`'s scripts at toy sizes (test/bench-smoke.js)
 *
 * Without CI: the first four (the browser stages need Chromium; without it they are skipped, saying so), and the MySQL
 * stage when TEST_DATABASE_URL or TEST_REDIS_URL is set. With CI=true (`npm run test:ci`, and `.ci/run`) all of them,
 * and a missing Chromium, MariaDB, Redis, cluster (TEST_REDIS_CLUSTER_NODES) or replica (TEST_REPLICATION_*) fails
 * the run instead of skipping.
 * TEST_RELIABILITY=true and TEST_BENCH_SMOKE=true run those two stages without CI. E2E_WORKERS sets the e2e workers.
 * Arguments after `--` go to every Jest stage (e.g. `npm test -- --testPathPatterns clicks`).
 */
const { spawn, spawnSync } = require('node:child_process');
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
const results = [];
const reportDir = mkdtempSync(path.join(tmpdir(), 'adnet-test-run-'));

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
  'metrics',
  'compat-ton-ai-sdk',
].map((name) => `test/e2e/${name}.e2e-spec.ts`);

function heading(label) {
  process.stdout.write(`\n=== ${label} ===\n`);
}

function skip(label, reason) {
  heading(label);
  process.stdout.write(`skipped: ${reason}\n`);
  results.push({ label, skipped: reason });
}

/** A stage that cannot run where CI needs it: counted as one failure. */
function missing(label, reason) {
  heading(label);
  process.stderr.write(`FAILED: ${reason}\n`);
  results.push({ label, passed: 0, failed: 1, note: reason });
}

function run(command, args, options = {}) {
  return spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options, env: { ...process.env, ...options.env } });
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** How long a Jest run may stay alive once its report is written (an open handle would keep it alive for good). */
const EXIT_GRACE_MS = 30_000;
/** A Jest stage that has written no report in this time is stopped and counted as failed. */
const STAGE_LIMIT_MS = Number(process.env.TEST_STAGE_LIMIT_MINUTES || 30) * 60_000;

/**
 * Runs Jest and resolves with its exit status, or with `lingered` when it was stopped because it stayed alive
 * EXIT_GRACE_MS after writing its report, or `timedOut` when it wrote none within STAGE_LIMIT_MS. Jest waits forever
 * on a handle a test left open; this bounds that wait without --forceExit, and says so in the summary.
 */
function runJest(args, env, report) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', detached: true, env: { ...process.env, ...env } });
    // its own process group, so that a stop takes its workers too; an interrupt of this run still reaches it
    const forward = (signal) => () => {
      try {
        process.kill(-child.pid, signal);
      } finally {
        process.exit(1);
      }
    };
    const onInterrupt = forward('SIGINT');
    const onTerminate = forward('SIGTERM');
    process.once('SIGINT', onInterrupt).once('SIGTERM', onTerminate);
    const started = Date.now();
    let reportSeenAt = null;
    let stoppedFor = null;
    const stop = (reason) => {
      stoppedFor = reason;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const watch = setInterval(() => {
      if (reportSeenAt === null && existsSync(report) && statSync(report).size > 0) reportSeenAt = Date.now();
      if (reportSeenAt !== null && Date.now() - reportSeenAt > EXIT_GRACE_MS) stop('lingered');
      else if (reportSeenAt === null && Date.now() - started > STAGE_LIMIT_MS) stop('timedOut');
    }, 1000);
    child.on('exit', (status) => {
      clearInterval(watch);
      process.off('SIGINT', onInterrupt).off('SIGTERM', onTerminate);
      resolve({ status, lingered: stoppedFor === 'lingered', timedOut: stoppedFor === 'timedOut' });
    });
  });
}

/** A Jest run; its counts come from Jest's JSON report. A run that reported nothing counts as one failure. */
async function jestStage(label, args, env = {}, config = 'jest.config.js') {
  heading(label);
  const report = path.join(reportDir, `${results.length}.json`);
  const result = await runJest([jestBin, '--config', config, ...args, ...extraArgs, '--json', '--outputFile', report], env, report);
  const json = readJson(report);
  if (!json) {
    const why = result.timedOut ? `no report within ${STAGE_LIMIT_MS / 60_000} min: stopped` : `Jest exited ${result.status} without a report`;
    results.push({ label, passed: 0, failed: 1, note: why });
    return;
  }
  // A file that failed to run (a throwing beforeAll, a syntax error) has no failed test of its own.
  const brokenFiles = json.testResults.filter((file) => file.status === 'failed' && file.assertionResults.every((test) => test.status !== 'failed')).length;
  const exitedBadly = !result.lingered && result.status !== 0;
  const failed = json.numFailedTests + brokenFiles + (exitedBadly && json.numFailedTests + brokenFiles === 0 ? 1 : 0);
  // The verdicts are in the report; a process kept alive by a leaked handle is told, not counted as a failed test.
  const note = result.lingered ? `Jest was still running ${EXIT_GRACE_MS / 1000} s after its report (an open handle): stopped` : undefined;
  if (note) process.stdout.write(`\n${note}\n`);
  // Tests a file skips on this profile (MySQL-only specs on SQLite, say), named so a skip is never silent.
  const skippedFiles = json.testResults
    .filter((file) => file.assertionResults.some((test) => test.status === 'pending' || test.status === 'skipped'))
    .map((file) => path.relative(root, file.name));
  results.push({ label, passed: json.numPassedTests, failed, pending: json.numPendingTests, skippedFiles, note });
}

/** A command judged by its exit code alone: one check. */
function commandStage(label, command, args, options = {}) {
  heading(label);
  const result = run(command, args, options);
  results.push({ label, passed: result.status === 0 ? 1 : 0, failed: result.status === 0 ? 0 : 1 });
  return result.status === 0;
}

function e2eArgs(workers, files = []) {
  const args = ['--selectProjects', 'e2e', workers === 1 ? '--runInBand' : `--maxWorkers=${workers}`, ...files];
  if (existsSync(chromium) || CI) return args;
  process.stdout.write(`(the SDK browser e2e needs Chromium at ${chromium} (apt-get install -y chromium): left out, as CI is not set)\n`);
  return [...args, '--testPathIgnorePatterns', 'sdk-browser\\.e2e-spec\\.ts$'];
}

function adminStages() {
  const adminUi = path.join(root, 'admin-ui');
  heading('admin panel unit tests (Vitest)');
  const report = path.join(reportDir, 'vitest.json');
  const vitest = run(
    process.execPath,
    [path.join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
    {
      cwd: adminUi,
    },
  );
  const json = readJson(report);
  if (json)
    results.push({
      label: 'admin panel unit tests (Vitest)',
      passed: json.numPassedTests,
      failed: json.numFailedTests + (vitest.status !== 0 && json.numFailedTests === 0 ? 1 : 0),
    });
  else results.push({ label: 'admin panel unit tests (Vitest)', passed: 0, failed: 1, note: `Vitest exited ${vitest.status} without a report` });

  const label = 'admin panel browser e2e (Playwright + Chromium)';
  if (!existsSync(chromium)) {
    const reason = `needs Chromium at ${chromium} (apt-get install -y chromium)`;
    if (CI) missing(label, reason);
    else skip(label, `${reason}; CI is not set`);
    return;
  }
  // built already by the start-up e2e unless a source changed since (scripts/build-if-stale.js, as `npm start` does)
  if (!commandStage('build (API and admin panel) for the browser e2e', process.execPath, [path.join(root, 'scripts', 'build-if-stale.js')])) return;
  heading(label);
  const playwrightReport = path.join(reportDir, 'playwright.json');
  const playwright = run(
    process.execPath,
    [
      path.join(root, 'node_modules', '@playwright', 'test', 'cli.js'),
      'test',
      '-c',
      path.join('admin-ui', 'e2e', 'playwright.config.ts'),
      '--reporter=list,json',
    ],
    { env: { PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport } },
  );
  const stats = readJson(playwrightReport)?.stats;
  if (stats) {
    const failed = stats.unexpected + (playwright.status !== 0 && stats.unexpected === 0 ? 1 : 0);
    results.push({ label, passed: stats.expected + stats.flaky, failed, pending: stats.skipped });
  } else results.push({ label, passed: 0, failed: 1, note: `Playwright exited ${playwright.status} without a report` });
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
  await jestStage(mysqlLabel, e2eArgs(E2E_WORKERS), { TEST_PROFILE: 'mysql', TEST_REDIS_CLUSTER_NODES: '' });
  const clusterNodes = process.env.TEST_REDIS_CLUSTER_NODES;
  if (clusterNodes) {
    await jestStage(`${clusterLabel} (${clusterNodes})`, e2eArgs(1, CLUSTER_E2E_FILES), { TEST_PROFILE: 'mysql' });
  } else if (CI) {
    missing(clusterLabel, 'CI=true needs TEST_REDIS_CLUSTER_NODES (scripts/redis-cluster.sh start)');
  } else {
    skip(clusterLabel, 'start one with scripts/redis-cluster.sh start and set TEST_REDIS_CLUSTER_NODES');
  }
}

async function reliabilityStage() {
  const label = 'reliability: 2 APIs + 1 worker under load and faults (private MariaDB + Redis)';
  if (!CI && process.env.TEST_RELIABILITY !== 'true') return skip(label, 'set CI=true or TEST_RELIABILITY=true (it takes minutes)');
  await jestStage(label, [], {}, path.join('test', 'reliability', 'jest.config.js'));
}

function benchSmokeStage() {
  const label = 'bench smoke: bench/serving.js and bench/scale.js at toy sizes (figures not judged)';
  if (!CI && process.env.TEST_BENCH_SMOKE !== 'true') return skip(label, 'set CI=true or TEST_BENCH_SMOKE=true (needs MariaDB, Redis and the build)');
  if (!commandStage('build for the bench smoke', process.execPath, [path.join(root, 'scripts', 'build-if-stale.js')])) return;
  commandStage(label, process.execPath, [path.join(root, 'test', 'bench-smoke.js')]);
}

function summary() {
  const passed = results.reduce((sum, r) => sum + (r.passed ?? 0), 0);
  const failed = results.reduce((sum, r) => sum + (r.failed ?? 0), 0);
  process.stdout.write('\n=== summary ===\n');
  for (const r of results) {
    if (r.skipped) process.stdout.write(`  skipped  ${r.label}: ${r.skipped}\n`);
    else {
      const pending = r.pending ? `, ${r.pending} skipped by their file (${r.skippedFiles.join(', ')})` : '';
      const note = r.note ? ` (${r.note})` : '';
      process.stdout.write(`  ${r.failed > 0 ? 'FAILED ' : 'passed '}  ${r.label}: ${r.passed} passed, ${r.failed} failed${pending}${note}\n`);
    }
  }
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  rmSync(reportDir, { recursive: true, force: true });
  process.exit(failed > 0 ? 1 : 0);
}

(async () => {
  await jestStage('unit tests (service and SDK)', ['--selectProjects', 'unit', 'sdk']);
  await jestStage('e2e tests, embedded profile (SQLite, in-process state)', e2eArgs(E2E_WORKERS), { TEST_PROFILE: 'embedded' });
  adminStages();
  await serviceStages();
  await reliabilityStage();
  benchSmokeStage();
  summary();
})().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
