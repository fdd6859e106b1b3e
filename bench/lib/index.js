'use strict';
/** Shared pieces of the benchmark scripts: child servers, load runs, reporting. Not part of the service. */
const { spawn } = require('node:child_process');
const path = require('node:path');
const autocannon = require('autocannon');

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * Starts `node <script>` with `env` and waits until `readyUrl` answers; the child dies with this process.
 * BENCH_SERVICE_NODE_ARGS adds node options to the service (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 * `timeoutMs`: how long it may take (bench/scale.js waits longer: 100,000 campaigns load in tens of seconds).
 */
async function startServer(label, script, env, readyUrl, logFile, timeoutMs = 60_000) {
  const fs = require('node:fs');
  const out = fs.openSync(logFile, 'w');
  const extraArgs = process.env.BENCH_SERVICE_NODE_ARGS ? process.env.BENCH_SERVICE_NODE_ARGS.split(/\s+/) : [];
  const nodeArgs = label === 'service' ? [...startScriptNodeFlags(), ...extraArgs] : [];
  const child = spawn(process.execPath, [...nodeArgs, script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', out, out] });
  const stop = () => child.kill('SIGTERM');
  process.on('exit', stop);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${label} exited with ${child.exitCode}; see ${logFile}`);
    try {
      const response = await fetch(readyUrl);
      if (response.status < 500) return { child, stop: () => stopChild(child) };
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  stop();
  throw new Error(`${label} did not start within ${timeoutMs / 1000} s; see ${logFile}`);
}

/** The node flags of `npm start` (heap settings), so the bench runs the service as it is run in production. */
function startScriptNodeFlags() {
  const start = require(path.join(ROOT, 'package.json')).scripts.start;
  return start.split(/\s+/).filter((word) => word.startsWith('--'));
}

function stopChild(child) {
  return new Promise((resolve) => {
    // a child stopped by a signal has no exit code, only a signal code
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One autocannon run. `requests` follows autocannon's format; `overallRate` fixes the offered load instead of
 * saturating; `amount` ends the run after that many requests instead of after `duration`. Answers req/s (mean),
 * latency percentiles in ms, how many answers were not 2xx, and the run's length in seconds.
 * @param {{url: string, connections?: number, duration?: number, amount?: number, overallRate?: number, requests?: object[],
 *   method?: string, headers?: Record<string, string>, body?: string}} options
 */
function load({ url, connections = 50, duration = 10, amount, overallRate, requests, method = 'GET', headers, body }) {
  return new Promise((resolve, reject) => {
    // A run of `amount` requests ends part-way through a second, and autocannon ends it (and times it) only at its next
    // one-second sample: its rate is its requests over the time to its last answer.
    const started = performance.now();
    let lastAnswer = started;
    const instance = autocannon({ url, connections, duration, amount, overallRate, requests, method, headers, body, timeout: 10 }, (error, result) => {
      if (error) return reject(error);
      const seconds = amount ? (lastAnswer - started) / 1000 : result.duration;
      resolve({
        rps: amount ? result.requests.total / seconds : result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        total: result.requests.total,
        seconds,
        non2xx: result.non2xx,
        errors: result.errors + result.timeouts,
      });
    });
    if (amount) instance.on('response', () => (lastAnswer = performance.now()));
  });
}

/** Runs `tasks` (functions answering promises) `concurrency` at a time. */
async function inParallel(tasks, concurrency) {
  const results = new Array(tasks.length);
  let next = 0;
  async function worker() {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, worker));
  return results;
}

/**
 * CPU time used by processes on this machine (Linux /proc), to tell per run where each request's CPU went: the
 * server under load, Redis, MySQL and the load generator (autocannon runs inside the bench process). A process
 * that is not found (a remote Redis, another OS) is left out.
 */
function cpuMeter(pids) {
  const read = (pid) => cpuSecondsOf(`/proc/${pid}/stat`);
  const present = Object.entries(pids).filter(([, pid]) => pid && read(pid) !== null);
  return {
    names: present.map(([name]) => name),
    /** Starts a measure; its stop(requests) answers µs of CPU per request for each process. */
    start() {
      const before = present.map(([, pid]) => read(pid));
      return (requests) =>
        Object.fromEntries(present.map(([name, pid], i) => [name, requests > 0 ? (((read(pid) ?? before[i]) - before[i]) * 1e6) / requests : 0]));
    },
  };
}

/**
 * The share of wall time each process's main thread ran (Linux /proc/<pid>/task/<pid>/stat). The service and Redis
 * each do their work on one thread: when the two shares add up to about a whole thread while neither is near it, they
 * take turns (the service waits for Redis' answer with no other request to work on), and a microsecond of Redis per
 * request then costs the fetch as much as one of the service's own.
 */
function mainThreadMeter(pids) {
  const read = (pid) => cpuSecondsOf(`/proc/${pid}/task/${pid}/stat`);
  const present = Object.entries(pids).filter(([, pid]) => pid && read(pid) !== null);
  return {
    /** Starts a measure; its stop() answers each main thread's busy share of the wall time since. */
    start() {
      const startedAt = process.hrtime.bigint();
      const before = present.map(([, pid]) => read(pid));
      return () => {
        const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
        return Object.fromEntries(present.map(([name, pid], i) => [name, ((read(pid) ?? before[i]) - before[i]) / seconds]));
      };
    },
  };
}

/**
 * The share of all the machine's cores busy with anything (Linux /proc/stat, every process of the machine counted,
 * the bench's own and others'): beside the share the bench's processes took, it shows how much of the machine
 * something else took during a run. Answers null where /proc/stat cannot be read.
 */
function machineMeter() {
  const read = () => {
    try {
      const fields = require('node:fs').readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
      // user nice system idle iowait irq softirq steal: idle and iowait are the cores' idle time
      const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
      return { total, idle: fields[3] + fields[4] };
    } catch {
      return null;
    }
  };
  return {
    /** Starts a measure; its stop() answers the busy share of all cores since, or null. */
    start() {
      const before = read();
      return () => {
        const after = read();
        if (!before || !after || after.total === before.total) return null;
        return 1 - (after.idle - before.idle) / (after.total - before.total);
      };
    },
  };
}

/** User plus system CPU seconds of a process or thread, from its /proc stat file; null when it cannot be read. */
function cpuSecondsOf(statPath) {
  const ticksPerSecond = 100; // USER_HZ, 100 on Linux
  try {
    const fields = require('node:fs').readFileSync(statPath, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  } catch {
    return null;
  }
}

/** The oldest process with this exact name, or null (pgrep missing or nothing running). */
function pidOf(name) {
  try {
    const out = require('node:child_process').execFileSync('pgrep', ['-o', '-x', name], { encoding: 'utf8' }).trim();
    return out ? Number(out) : null;
  } catch {
    return null;
  }
}

function table(rows) {
  const cpuNames = [...new Set(rows.flatMap((row) => Object.keys(row.cpu ?? {})))];
  const header = ['run', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'vs bare', ...cpuNames.map((name) => `${name} µs`)];
  const lines = rows.map((row) => [
    row.name,
    row.rps.toFixed(0),
    String(row.p50),
    String(row.p99),
    String(row.non2xx),
    String(row.errors),
    row.ratio === undefined ? '' : `${(row.ratio * 100).toFixed(0)} %`,
    ...cpuNames.map((name) => (row.cpu?.[name] === undefined ? '' : row.cpu[name].toFixed(0))),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => line[i].length)));
  const format = (cells) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [format(header), ...lines.map(format)].join('\n');
}

module.exports = { ROOT, startServer, startScriptNodeFlags, load, inParallel, table, sleep, cpuMeter, mainThreadMeter, machineMeter, pidOf };
