'use strict';
/**
 * What an AsyncLocalStorage in use costs every await of the process on this Node (docs/ARCHITECTURE.md, "A
 * transaction awaits only its own statements"): a loop of BENCH_AWAITS (2,000,000) awaits, timed in a fresh process
 * without one and in a fresh process where one has run once (on Node 20 that turns on promise hooks for good). Not
 * part of the service.
 *   node bench/probes/als-cost.js
 */
const { spawnSync } = require('node:child_process');

const AWAITS = Number(process.env.BENCH_AWAITS || 2_000_000);

/** Runs in the child: the awaits, after `withStorage` decides whether an AsyncLocalStorage ran first. */
async function child(withStorage) {
  const { AsyncLocalStorage } = require('node:async_hooks');
  const step = async (i) => {
    await null;
    return i + 1;
  };
  const loop = async (n) => {
    let x = 0;
    for (let i = 0; i < n; i++) x = await step(x);
    return x;
  };
  if (withStorage) await new AsyncLocalStorage().run(1, () => loop(1));
  await loop(100_000);
  const started = process.hrtime.bigint();
  await loop(AWAITS);
  process.stdout.write(String(Number(process.hrtime.bigint() - started) / 1e6));
}

if (process.argv[2] === 'child') {
  void child(process.argv[3] === 'als');
} else {
  const timeOf = (variant) => Number(spawnSync(process.execPath, [process.argv[1], 'child', variant], { encoding: 'utf8' }).stdout);
  for (let round = 1; round <= 2; round++) {
    const plain = timeOf('plain');
    const withStorage = timeOf('als');
    process.stdout.write(
      `round ${round}: ${AWAITS} awaits took ${plain.toFixed(0)} ms without an AsyncLocalStorage, ${withStorage.toFixed(0)} ms after one ran (${(withStorage / plain).toFixed(1)}x), node ${process.version}\n`,
    );
  }
}
