'use strict';
/**
 * How long this machine leaves a Node process without running it: a process doing nothing but a 1 ms timer records
 * every gap over 8 ms between two of its turns, for BENCH_IDLE_SECONDS (20). Run it on an idle machine, or beside a
 * load, to see the pauses no server on it can avoid (docs/PERFORMANCE.md#targets, 2b). Not part of
 * the service.
 *   node bench/lib/idle-gaps.js
 */
const SECONDS = Number(process.env.BENCH_IDLE_SECONDS || 20);
const THRESHOLD_MS = 8;

const gaps = [];
// Said first, so a bench waits for it before it starts a load: a Node process starting (some 50 ms of CPU) beside the
// first tenth of a second of a run was that tenth's p99.
process.stdout.write('measuring\n');
const started = performance.now();
let last = started;
const timer = setInterval(() => {
  const now = performance.now();
  if (now - last > THRESHOLD_MS) gaps.push(Math.round(now - last));
  last = now;
}, 1);

setTimeout(() => {
  clearInterval(timer);
  const seconds = (performance.now() - started) / 1000;
  const longest = gaps.length > 0 ? Math.max(...gaps) : 0;
  process.stdout.write(
    `idle Node process, ${seconds.toFixed(0)} s: ${gaps.length} pauses over ${THRESHOLD_MS} ms (longest ${longest} ms)${gaps.length > 0 ? `: ${gaps.join(', ')} ms` : ''}\n`,
  );
}, SECONDS * 1000);
