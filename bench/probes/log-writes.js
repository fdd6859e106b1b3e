'use strict';
/**
 * What the access log's writes cost the process by chunk size (src/common/logging/line-buffer.ts, LOG_CHUNK). Not part of the
 * service. Writes LOG_WRITES_MB (200) of access lines to a file through `fs.write`, one write in flight, as the
 * service's line buffer hands them to sonic-boom, once per chunk size, and prints the process's CPU (every thread:
 * libuv's pool does the writes) per MB written and per access line.
 *   node bench/probes/log-writes.js            # chunks of 8, 64 and 256 KiB, each measured twice
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const TOTAL_BYTES = Number(process.env.LOG_WRITES_MB || 200) * 1e6;
const CHUNKS = [8192, 65536, 262144];
// The shape of the service's access line (accessLogWriter in src/common/logging/access-log.ts).
const LINE = `{"level":30,"time":${Date.now()},"service":"adnet","pid":12345,"reqId":"80bc5b05-14fd-459c-968b-09bbb5430155","method":"GET","path":"/api/v2/openapi/matching/ad","status":200,"ms":2,"msg":"request"}\n`;

async function measure(fd, chunkBytes) {
  const chunk = LINE.repeat(Math.ceil(chunkBytes / LINE.length));
  const writes = Math.floor(TOTAL_BYTES / chunk.length);
  const before = process.cpuUsage();
  for (let i = 0; i < writes; i++) {
    await new Promise((resolve, reject) => fs.write(fd, chunk, null, 'utf8', (error) => (error ? reject(error) : resolve())));
  }
  const used = process.cpuUsage(before);
  const micros = used.user + used.system;
  const megabytes = (writes * chunk.length) / 1e6;
  return { perMb: micros / 1000 / megabytes, perLine: micros / ((writes * chunk.length) / LINE.length) };
}

async function main() {
  const file = path.join(os.tmpdir(), `adnet-log-writes-${process.pid}.log`);
  const fd = fs.openSync(file, 'w');
  try {
    process.stdout.write(`access line ${LINE.length} bytes, ${TOTAL_BYTES / 1e6} MB per measurement\n`);
    for (const round of [1, 2]) {
      for (const chunkBytes of CHUNKS) {
        fs.ftruncateSync(fd, 0);
        const { perMb, perLine } = await measure(fd, chunkBytes);
        process.stdout.write(
          `  round ${round}, ${chunkBytes / 1024} KiB writes: ${perMb.toFixed(2)} ms of CPU per MB, ${perLine.toFixed(2)} µs per access line\n`,
        );
      }
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
