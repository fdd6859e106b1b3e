'use strict';
/**
 * What holds the event loop of the process it is preloaded into, printed to stderr once a second: requests received,
 * heap used, the event-loop delay (max and p99, perf_hooks.monitorEventLoopDelay), every gap over 8 ms between two
 * timer turns, and every garbage collection over 2 ms (kind 1: scavenge, 4: mark-compact). With better-sqlite3
 * loaded, every statement over 5 ms is printed too, with its time and text. Used on the service under the bench's
 * load (docs/PERFORMANCE.md#periodic-work-in-parts). Not part of the service.
 *   npm run build && BENCH_PHASES=saturation,fixed BENCH_ROUNDS=1 \
 *     BENCH_SERVICE_NODE_ARGS="--require ./bench/probes/loop-monitor-preload.js" node bench/serving.js
 *   grep -E 'loop-monitor|slow-sql' /tmp/adnet-bench-service-embedded.log
 */
const http = require('node:http');
const path = require('node:path');
const { monitorEventLoopDelay, PerformanceObserver } = require('node:perf_hooks');

const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
const collections = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    if (entry.duration > 2) collections.push(`${/** @type {{ detail?: { kind?: number } }} */ (entry).detail?.kind}:${entry.duration.toFixed(1)}`);
}).observe({ entryTypes: ['gc'] });

let requests = 0;
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function countedEmit(event, ...args) {
  if (event === 'request') requests++;
  return emit.call(this, event, ...args);
};

const gaps = [];
let last = performance.now();
(function tick() {
  const now = performance.now();
  if (now - last > 8) gaps.push((now - last).toFixed(0));
  last = now;
  setTimeout(tick, 0).unref();
})();

const clock = () => new Date().toISOString().slice(11, 23);
setInterval(() => {
  process.stderr.write(
    `loop-monitor ${clock()} requests ${requests} heap ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB delay max ${(delay.max / 1e6).toFixed(1)} p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms gaps [${gaps.join(',')}] gc [${collections.join(',')}]\n`,
  );
  delay.reset();
  requests = 0;
  gaps.length = 0;
  collections.length = 0;
}, 1000).unref();

try {
  const Database = require(require.resolve('better-sqlite3', { paths: [path.resolve(__dirname, '..', '..')] }));
  const Statement = new Database(':memory:').prepare('SELECT 1').constructor;
  for (const method of ['run', 'all', 'get', 'iterate']) {
    const original = Statement.prototype[method];
    Statement.prototype[method] = function timedStatement(...args) {
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const ms = performance.now() - started;
        if (ms > 5) process.stderr.write(`slow-sql ${clock()} ${ms.toFixed(1)} ms ${this.source.slice(0, 100).replace(/\s+/g, ' ')}\n`);
      }
    };
  }
} catch (error) {
  process.stderr.write(`loop-monitor: better-sqlite3 statements not timed (${error.message})\n`);
}
