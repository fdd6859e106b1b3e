'use strict';
/**
 * Times every `socket.write` of the process it is preloaded into, per remote port, and prints each 2 s to stderr:
 * writes, mean bytes, mean µs inside the call. Used on the service under the bench's load to see what its writes to
 * Redis (6379) and MySQL (3306) cost (docs/PERFORMANCE.md, "The floor under the hot paths"). Not part of the service.
 *   BENCH_SERVICE_NODE_ARGS="--require ./bench/socket-write-preload.js" node bench/warmup.js
 *   grep socket-writes /tmp/adnet-bench-warmup-service.log
 */
const net = require('node:net');

const original = net.Socket.prototype.write;
/** @type {Map<string, {writes: number, bytes: number, micros: number}>} */
const byPort = new Map();

net.Socket.prototype.write = function timedWrite(data, ...rest) {
  const started = process.hrtime.bigint();
  const written = original.call(this, data, ...rest);
  const micros = Number(process.hrtime.bigint() - started) / 1000;
  const port = String(this.remotePort);
  const entry = byPort.get(port) ?? { writes: 0, bytes: 0, micros: 0 };
  entry.writes += 1;
  entry.bytes += data.length;
  entry.micros += micros;
  byPort.set(port, entry);
  return written;
};

setInterval(() => {
  const line = [...byPort]
    .filter(([port]) => port === '6379' || port === '3306')
    .map(
      ([port, { writes, bytes, micros }]) => `port ${port}: ${writes} writes, ${(bytes / writes).toFixed(0)} B mean, ${(micros / writes).toFixed(1)} µs mean`,
    )
    .join(' | ');
  if (line) process.stderr.write(`[socket-writes] ${line}\n`);
  byPort.clear();
}, 2000).unref();
