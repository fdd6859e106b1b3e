'use strict';
/**
 * Where the embedded profile's SQLite time goes, by statement: preloaded into the service, it times every
 * better-sqlite3 statement run on the event loop (`run`, `all`, `get`, `exec`) and prints to stderr every two seconds
 * the total time, the count and the mean of each statement text (first 60 characters), largest first. Not part of
 * the service (docs/PERFORMANCE.md, "What the service waits for").
 *   npm run build && BENCH_STORES=embedded BENCH_PHASES=saturation BENCH_ROUNDS=1 \
 *     BENCH_SERVICE_NODE_ARGS="--require ./bench/sqlite-statements-preload.js" node bench/serving.js
 *   grep -A10 sqlite-statements /tmp/adnet-bench-service-embedded.log
 */
const path = require('node:path');

const Database = require(path.join(__dirname, '..', 'node_modules', 'better-sqlite3'));
const INTERVAL_MS = 2000;
const SHOWN = 12;

/** @type {Map<string, { count: number, ns: number }>} */
const totals = new Map();

/** @param {string} key @param {bigint} started */
function add(key, started) {
  const ns = Number(process.hrtime.bigint() - started);
  const total = totals.get(key) ?? { count: 0, ns: 0 };
  total.count += 1;
  total.ns += ns;
  totals.set(key, total);
}

/** @param {string} sql */
const keyOf = (sql) => sql.replace(/\s+/g, ' ').slice(0, 60);

const probe = new Database(':memory:');
const statementPrototype = Object.getPrototypeOf(probe.prepare('SELECT 1'));
probe.close();
for (const method of ['run', 'all', 'get']) {
  const original = statementPrototype[method];
  statementPrototype[method] = function timed(/** @type {unknown[]} */ ...args) {
    const started = process.hrtime.bigint();
    try {
      return original.apply(this, args);
    } finally {
      add(keyOf(this.source), started);
    }
  };
}
const exec = Database.prototype.exec;
Database.prototype.exec = function timedExec(/** @type {string} */ sql) {
  const started = process.hrtime.bigint();
  try {
    return exec.call(this, sql);
  } finally {
    add(`EXEC ${keyOf(sql)}`, started);
  }
};

setInterval(() => {
  const rows = [...totals].sort((a, b) => b[1].ns - a[1].ns).slice(0, SHOWN);
  totals.clear();
  const lines = rows.map(
    ([key, { count, ns }]) =>
      `  ${(ns / 1e6).toFixed(0).padStart(7)} ms ${String(count).padStart(7)} x ${(ns / count / 1e3).toFixed(0).padStart(6)} µs  ${key}`,
  );
  process.stderr.write(`sqlite-statements ${new Date().toISOString()} (last ${INTERVAL_MS / 1000} s)\n${lines.join('\n')}\n`);
}, INTERVAL_MS).unref();
