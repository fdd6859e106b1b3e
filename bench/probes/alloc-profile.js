'use strict';
/**
 * Where the service allocates, garbage included. Not part of the service.
 *
 * As a preload it samples every allocation (also of objects already collected) from ALLOC_FROM_S to ALLOC_TO_S
 * seconds after the process started and writes ALLOC_OUT (/tmp/adnet-alloc.heapprofile):
 *   BENCH_PHASES=fixed ALLOC_FROM_S=62 ALLOC_TO_S=68 \
 *     BENCH_SERVICE_NODE_ARGS="--require ./bench/probes/alloc-profile.js" node bench/serving.js
 * (with BENCH_PHASES=fixed the ad fetch at 2,000 req/s runs from about 58 s to 68 s).
 *
 * ALLOC_PROMOTED=1 leaves out what the young generation collected: what is left survived a scavenge, the objects that
 * make scavenges slow. Add `--expose-gc` to the node flags so that a scavenge runs at the window's end (without it,
 * the young generation's garbage of that moment passes for survivors). Run as a script, it prints the functions that allocated most: `node bench/probes/alloc-profile.js [file]`.
 */
const fs = require('node:fs');

const OUT = process.env.ALLOC_OUT || '/tmp/adnet-alloc.heapprofile';

function sample() {
  const inspector = require('node:inspector');
  const session = new inspector.Session();
  session.connect();
  const from = Number(process.env.ALLOC_FROM_S || 60) * 1000;
  const to = Number(process.env.ALLOC_TO_S || 70) * 1000;
  const started = process.uptime() * 1000;
  setTimeout(
    () => {
      session.post('HeapProfiler.startSampling', {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: process.env.ALLOC_PROMOTED !== '1',
      });
      setTimeout(() => {
        // one scavenge first (with --expose-gc): what the young generation still held at the window's end was not yet
        // judged, and without it a young generation of garbage passes for survivors
        if (process.env.ALLOC_PROMOTED === '1' && typeof globalThis.gc === 'function') globalThis.gc({ type: 'minor' });
        session.post('HeapProfiler.stopSampling', (error, result) => {
          if (!error) fs.writeFileSync(OUT, JSON.stringify(result.profile));
        });
      }, to - from).unref();
    },
    Math.max(0, from - started),
  ).unref();
}

function report(file) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const bySelf = new Map();
  let total = 0;
  const walk = (node) => {
    const frame = node.callFrame;
    const name = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}`;
    bySelf.set(name, (bySelf.get(name) ?? 0) + node.selfSize);
    total += node.selfSize;
    node.children.forEach(walk);
  };
  walk(profile.head);
  process.stdout.write(`allocated ${(total / 1e6).toFixed(1)} MB in the window; most by:\n`);
  for (const [name, size] of [...bySelf].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    process.stdout.write(`${(size / 1e6).toFixed(1).padStart(8)} MB  ${name}\n`);
  }
}

if (require.main === module) report(process.argv[2] || OUT);
else sample();
