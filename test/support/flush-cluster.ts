/**
 * Jest setupFilesAfterEnv of the e2e project: on a Redis Cluster run (TEST_REDIS_CLUSTER_NODES), every file starts on
 * an empty cluster (FLUSHALL on every master), as the files of one run share it. Nothing on the other runs.
 */
import Redis from 'ioredis';

const seeds = process.env.TEST_REDIS_CLUSTER_NODES;
if (seeds) {
  beforeAll(async () => {
    await Promise.all(
      seeds.split(',').map(async (seed) => {
        const [host, port] = seed.trim().split(':');
        const node = new Redis({ host, port: Number(port), lazyConnect: true, maxRetriesPerRequest: 1 });
        try {
          await node.connect();
          const [role] = (await node.role()) as [string];
          if (role === 'master') await node.flushall();
        } finally {
          node.disconnect();
        }
      }),
    );
  });
}
