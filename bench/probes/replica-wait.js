'use strict';
/**
 * What `WAIT 1 500` after a script costs on a Redis Cluster (src/redis/replica-wait.ts): 2,000 short scripts one after
 * the other from one client, alone and each followed by WAIT in the same pipeline, 3 rounds after a warm-up. Prints
 * microseconds per call. Needs a cluster with replicas: BENCH_REDIS_CLUSTER_NODES (127.0.0.1:7000, what
 * `scripts/redis-cluster.sh start` makes); its keys are under adnet-bench-wait: and deleted at the end.
 */
const Redis = require('ioredis');

const seeds = (process.env.BENCH_REDIS_CLUSTER_NODES || '127.0.0.1:7000').split(',').map((seed) => {
  const [host, port] = seed.trim().split(':');
  return { host, port: Number(port) };
});
const MARK = "redis.call('SET', KEYS[1], ARGV[1]); return 1";
const MARK_SHA = require('node:crypto').createHash('sha1').update(MARK).digest('hex');
const CALLS = 2000;
const USERS = 50;

async function main() {
  const cluster = new Redis.Cluster(seeds, { keyPrefix: 'adnet-bench-wait:' });
  // loaded on every master first, so EVALSHA never misses
  await Promise.all(cluster.nodes('master').map((node) => node.script('LOAD', MARK)));
  const round = async (withWait) => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) {
      const key = `mark:{u:${i % USERS}}`;
      if (withWait) {
        const pipeline = cluster.pipeline();
        pipeline.evalsha(MARK_SHA, 1, key, i);
        pipeline.call('WAIT', 1, 500);
        await pipeline.exec();
      } else {
        await cluster.evalsha(MARK_SHA, 1, key, i);
      }
    }
    return Number(process.hrtime.bigint() - started) / 1000 / CALLS;
  };
  await round(false);
  await round(true);
  const alone = [];
  const waited = [];
  for (let r = 0; r < 3; r++) {
    alone.push(await round(false));
    waited.push(await round(true));
  }
  const show = (values) => values.map((value) => value.toFixed(0)).join(', ');
  process.stdout.write(`script alone: ${show(alone)} µs a call; script + WAIT 1 500: ${show(waited)} µs a call\n`);
  for (let i = 0; i < USERS; i++) await cluster.del(`mark:{u:${i}}`);
  await cluster.quit();
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
