'use strict';
/**
 * What one socket write to a local server costs this machine: the floor under every Redis and MySQL round trip the
 * service makes, and under every HTTP answer. Not part of the service.
 *
 * Writes an ECHO command of BENCH_WRITE_BYTES (600, 6,600 and 60,000 by default) to Redis on loopback, one write per
 * turn of the event loop (as the service's pipelines go out), and prints the time spent inside `socket.write` and
 * the process's CPU time per write. On a virtual machine a write that wakes a process on the other vCPU costs far
 * more than the bytes it carries (docs/PERFORMANCE.md, "The floor under the hot paths").
 *   node bench/socket-write.js                         # Redis at 127.0.0.1:6379
 *   BENCH_REDIS_URL=redis://127.0.0.1:6380 BENCH_WRITE_BYTES=600 node bench/socket-write.js
 */
const net = require('node:net');

const url = new URL(process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379');
const sizes = (process.env.BENCH_WRITE_BYTES || '600,6600,60000').split(',').map(Number);
const WRITES = Number(process.env.BENCH_WRITES || 3000);

function echoCommand(bytes) {
  const payload = 'x'.repeat(bytes);
  return `*2\r\n$4\r\nECHO\r\n$${bytes}\r\n${payload}\r\n`;
}

async function main() {
  const socket = net.connect(Number(url.port || 6379), url.hostname);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.on('data', () => undefined);
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  for (const bytes of sizes) {
    const command = echoCommand(bytes);
    for (let i = 0; i < 200; i++) {
      socket.write(command);
      await turn();
    }
    let insideWrite = 0n;
    const cpuBefore = process.cpuUsage();
    for (let i = 0; i < WRITES; i++) {
      const started = process.hrtime.bigint();
      socket.write(command);
      insideWrite += process.hrtime.bigint() - started;
      await turn();
    }
    const cpu = process.cpuUsage(cpuBefore);
    const insideMicros = Number(insideWrite) / 1000 / WRITES;
    process.stdout.write(
      `socket write of ${bytes} bytes to Redis: ${insideMicros.toFixed(1)} µs inside socket.write, ` +
        `${((cpu.user + cpu.system) / WRITES).toFixed(1)} µs of process CPU per write and turn (system ${(cpu.system / WRITES).toFixed(1)})\n`,
    );
  }
  socket.end();
}

main().catch((error) => {
  process.stderr.write(`socket-write bench failed: ${error.stack}\n`);
  process.exit(1);
});
