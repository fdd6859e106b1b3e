#!/usr/bin/env node
/**
 * `npm test`: unit specs, then the e2e suite on the embedded profile (SQLite), then again on MariaDB/MySQL +
 * Redis when CI=true or TEST_DATABASE_URL / TEST_REDIS_URL are set. In that case an unreachable database or
 * Redis fails the run: it is never skipped quietly. Between them, the admin panel's Vitest specs and its browser
 * e2e (Playwright driving Debian's Chromium against the built application); without CI the browser step is
 * skipped, saying so, when Chromium is missing, and with CI=true a missing Chromium fails the run. Last, with
 * CI=true (or TEST_RELIABILITY=true), the reliability suite: several processes and faults on a private MariaDB + Redis,
 * and (CI=true or TEST_BENCH_SMOKE=true) the bench smoke: `npm run bench`'s scripts at toy sizes (test/bench-smoke.js).
 * After the MySQL + Redis run, the files that exercise the shared Redis state run once more on a Redis Cluster
 * (TEST_REDIS_CLUSTER_NODES, which .ci/run sets after starting one with scripts/redis-cluster.sh; with CI=true and no
 * cluster the run fails).
 * The SDK's specs run with the unit specs; its e2e specs (test/e2e/sdk-*) with the e2e suite, on both profiles, the
 * browser one (test/e2e/sdk-browser.e2e-spec.ts) under the same Chromium rule as the admin panel's browser e2e.
 */
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const extraArgs = process.argv.slice(2);
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
  'metrics',
  'compat-ton-ai-sdk',
].map((name) => `test/e2e/${name}.e2e-spec.ts`);

/**
 * Known defect, not fixed yet: once in a full MySQL + Redis e2e run (2026-11-25, 907 tests passed) Jest did not exit
 * afterwards: some handle is left open by one of the files, only in the whole run (every file and every half of the
 * files exits on its own). Until it is found (`--detectOpenHandles` over the whole run), the e2e runs end when their
 * tests are done instead of waiting for ever; their results and exit code are unaffected.
 */
const E2E_EXIT = ['--forceExit'];

function runJest(label, args, env = {}) {
  process.stdout.write(`\n=== ${label} ===\n`);
  const result = spawnSync(process.execPath, [jest, '--config', 'jest.config.js', ...args, ...extraArgs], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  if (result.status !== 0) {
    process.stderr.write(`\n${label}: FAILED\n`);
    process.exit(result.status ?? 1);
  }
}

function runStep(label, command, args, options = {}) {
  process.stdout.write(`\n=== ${label} ===\n`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options, env: { ...process.env, ...options.env } });
  if (result.status !== 0) {
    process.stderr.write(`\n${label}: FAILED\n`);
    process.exit(result.status ?? 1);
  }
}

/**
 * The e2e arguments: without Chromium the SDK's browser spec is left out, saying so, unless CI=true, where it runs
 * and fails (as the admin panel's browser e2e does).
 */
function e2eArgs() {
  if (existsSync(chromium) || process.env.CI === 'true') return ['--selectProjects', 'e2e', '--runInBand', ...E2E_EXIT];
  process.stdout.write(`\n(SDK browser e2e needs Chromium at ${chromium} (apt-get install -y chromium): skipped, as CI is not set)\n`);
  return ['--selectProjects', 'e2e', '--runInBand', ...E2E_EXIT, '--testPathIgnorePatterns', 'sdk-browser\\.e2e-spec\\.ts$'];
}

function runAdminPanelTests() {
  const adminUi = path.join(root, 'admin-ui');
  runStep('admin panel unit tests (Vitest)', process.execPath, [path.join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], {
    cwd: adminUi,
  });
  if (!existsSync(chromium)) {
    const message = `admin panel browser e2e needs Chromium at ${chromium} (apt-get install -y chromium)`;
    if (process.env.CI === 'true') {
      process.stderr.write(`\n${message}: FAILED\n`);
      process.exit(1);
    }
    process.stdout.write(`\n(${message}: skipped, as CI is not set)\n`);
    return;
  }
  // built already by the start-up e2e unless a source changed since (scripts/build-if-stale.js, as `npm start` does)
  runStep('build (API and admin panel) for the browser e2e', process.execPath, [path.join(root, 'scripts', 'build-if-stale.js')]);
  runStep('admin panel browser e2e (Playwright + Chromium)', process.execPath, [
    path.join(root, 'node_modules', '@playwright', 'test', 'cli.js'),
    'test',
    '-c',
    path.join('admin-ui', 'e2e', 'playwright.config.ts'),
  ]);
}

async function reachable() {
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

(async () => {
  runJest('unit tests (service and SDK)', ['--selectProjects', 'unit', 'sdk']);
  runJest('e2e tests, embedded profile (SQLite, in-process state)', e2eArgs(), {
    TEST_PROFILE: 'embedded',
  });
  runAdminPanelTests();

  const wantServices = process.env.CI === 'true' || Boolean(process.env.TEST_DATABASE_URL || process.env.TEST_REDIS_URL);
  if (!wantServices) {
    process.stdout.write('\n(MySQL + Redis profile not run: set CI=true or TEST_DATABASE_URL/TEST_REDIS_URL)\n');
    return;
  }
  const problems = await reachable();
  if (problems.length > 0) {
    process.stderr.write(`\nMySQL + Redis profile required but unreachable:\n  ${problems.join('\n  ')}\n`);
    process.exit(1);
  }
  // On one Redis server (TEST_REDIS_URL), the profile's default: .ci/run exports the cluster's nodes for the run after it,
  // and they must not turn this run into a second cluster run (the single-server paths would go untested).
  runJest('e2e tests, MySQL + Redis profile', e2eArgs(), { TEST_PROFILE: 'mysql', TEST_REDIS_CLUSTER_NODES: '' });
  const clusterNodes = process.env.TEST_REDIS_CLUSTER_NODES;
  if (clusterNodes) {
    // each file starts on an empty cluster (test/support/flush-cluster.ts)
    runJest(
      `e2e tests on a Redis Cluster (${clusterNodes}): the Redis-state files`,
      ['--selectProjects', 'e2e', '--runInBand', ...E2E_EXIT, ...CLUSTER_E2E_FILES],
      {
        TEST_PROFILE: 'mysql',
      },
    );
  } else if (process.env.CI === 'true') {
    process.stderr.write('\nRedis Cluster e2e required with CI=true: set TEST_REDIS_CLUSTER_NODES (scripts/redis-cluster.sh start): FAILED\n');
    process.exit(1);
  } else {
    process.stdout.write('\n(Redis Cluster e2e not run: start one with scripts/redis-cluster.sh start and set TEST_REDIS_CLUSTER_NODES)\n');
  }
  // Two API processes and a worker on their own MariaDB and Redis, under load and faults (test/reliability/).
  if (process.env.CI === 'true' || process.env.TEST_RELIABILITY === 'true') {
    runStep('reliability: 2 APIs + 1 worker under load, faults (private MariaDB + Redis)', process.execPath, [
      jest,
      '--config',
      path.join('test', 'reliability', 'jest.config.js'),
    ]);
  } else {
    process.stdout.write('\n(reliability suite not run: set CI=true or TEST_RELIABILITY=true)\n');
  }
  // `npm run bench`'s scripts at toy sizes on both profiles: they run on a fresh clone and print every result line.
  if (process.env.CI === 'true' || process.env.TEST_BENCH_SMOKE === 'true') {
    runStep('build for the bench smoke', process.execPath, [path.join(root, 'scripts', 'build-if-stale.js')]);
    runStep('bench smoke: bench/serving.js and bench/scale.js at toy sizes (figures not judged)', process.execPath, [
      path.join(root, 'test', 'bench-smoke.js'),
    ]);
  } else {
    process.stdout.write('\n(bench smoke not run: set CI=true or TEST_BENCH_SMOKE=true)\n');
  }
})().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
