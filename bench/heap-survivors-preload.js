'use strict';
/**
 * Where the objects that outlive a scavenge are allocated, in the process it is preloaded into: once the file
 * /tmp/adnet-heap-go exists, a sampling heap profile runs for 3 s keeping only objects not collected by a scavenge
 * (`includeObjectsCollectedByMinorGC: false`), then /tmp/adnet-heap-survivors.txt gets the allocating functions and
 * call chains by bytes. Used on the service under the bench's load (docs/PERFORMANCE.md, "The fixed-rate yardstick
 * and the event-loop blocks"). Not part of the service.
 *   BENCH_STORES=mysql BENCH_PHASES=fixed BENCH_SERVICE_NODE_ARGS="--require ./bench/heap-survivors-preload.js" node bench/serving.js &
 *   # once the run to look at has begun:
 *   touch /tmp/adnet-heap-go; sleep 5; head -40 /tmp/adnet-heap-survivors.txt
 */
const fs = require('node:fs');
const inspector = require('node:inspector');

const TRIGGER = '/tmp/adnet-heap-go';
const REPORT = '/tmp/adnet-heap-survivors.txt';
const session = new inspector.Session();
session.connect();

function frameName(frame) {
  return `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber}`;
}

function report(profile) {
  const bySite = new Map();
  const byChain = new Map();
  (function walk(node, chain) {
    const here = [...chain, frameName(node.callFrame)];
    if (node.selfSize > 0) {
      const site = here[here.length - 1];
      bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
      const calls = here.slice(-6).join(' < ');
      byChain.set(calls, (byChain.get(calls) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, here);
  })(profile.head, []);
  const lines = (totals) =>
    [...totals]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 30)
      .map(([name, bytes]) => `${(bytes / 1024).toFixed(0).padStart(8)} KB  ${name}`);
  fs.writeFileSync(REPORT, ['by allocating function:', ...lines(bySite), '', 'by call chain:', ...lines(byChain), ''].join('\n'));
}

const poll = setInterval(() => {
  if (!fs.existsSync(TRIGGER)) return;
  fs.unlinkSync(TRIGGER);
  clearInterval(poll);
  const options = { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false };
  session.post('HeapProfiler.enable', () =>
    session.post('HeapProfiler.startSampling', options, () =>
      setTimeout(
        () =>
          session.post('HeapProfiler.getSamplingProfile', (error, result) => {
            if (!error) report(result.profile);
            session.post('HeapProfiler.stopSampling');
          }),
        3000,
      ),
    ),
  );
}, 200);
poll.unref();
