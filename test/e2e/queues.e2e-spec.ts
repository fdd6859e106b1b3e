import { spawn } from 'node:child_process';
import { Queue } from 'bullmq';
import { Cluster } from 'ioredis';
import { loadConfig } from '../../src/app-config';
import { REDIS_CONFIG, RedisConfig } from '../../src/redis/redis.config';
import { bullConnection, BullMqJobQueue, bullPrefix } from '../../src/queue/bullmq-job-queue';
import { closeRedis } from '../../src/redis/redis.module';
import { MemoryJobQueue } from '../../src/queue/memory-job-queue';
import { JobQueue, QueueJob } from '../../src/queue/queue.types';
import { BUILT_MAIN, BUILT_WORKER, ensureBuilt, ROOT as root } from '../support/built-app';
import { TEST_DATABASE_URL, TEST_PROFILE, testRedisEnv } from '../support/profile';
import { storedProfile, uploadBatch, waitForBatch } from '../support/profile-helpers';
import { newUser } from '../support/serving-fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createAccount } from '../support/factories';

const waitFor = async (check: () => Promise<boolean>, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

type Adapter = {
  queue: JobQueue<{ n: number }>;
  work: (process: (job: QueueJob<{ n: number }>) => Promise<void>) => void;
  close: () => Promise<void>;
  /** What the adapter told its failed-try listener (the queue's /metrics counter): queue name, final. */
  failedTries: [string, boolean][];
};

/** The adapters this profile runs: the in-process queue always, BullMQ on a real Redis on the MySQL + Redis profile. */
const adapters: [string, () => Adapter][] = [
  [
    'in-process',
    () => {
      const failedTries: [string, boolean][] = [];
      const queue = new MemoryJobQueue<{ n: number }>('contract', (name, final) => failedTries.push([name, final]));
      return { queue, work: (process) => queue.work({ process }), close: () => queue.close(), failedTries };
    },
  ],
];
if (TEST_PROFILE === 'mysql') {
  adapters.push([
    'BullMQ on Redis',
    () => {
      const config = loadConfig(testRedisEnv());
      // on a cluster, one client the queue shares and the worker duplicates, closed here (see bullConnection)
      const connection = bullConnection(config);
      const prefix = bullPrefix(`adnet-e2e-queue-${process.pid}-${Date.now().toString(36)}`, config.redisClusterNodes !== null);
      const failedTries: [string, boolean][] = [];
      const queue = new BullMqJobQueue<{ n: number }>(new Queue('contract', { connection, prefix }), (name, final) => failedTries.push([name, final]));
      return {
        queue,
        failedTries,
        work: (process) => queue.work({ process }, connection),
        close: async () => {
          await queue.queue.obliterate({ force: true });
          await queue.close();
          if (connection instanceof Cluster) await closeRedis(connection);
        },
      };
    },
  ]);
}

describe.each(adapters)('Job queue contract: %s', (_name, make) => {
  let adapter: Adapter;
  beforeEach(() => (adapter = make()));
  afterEach(() => adapter.close());

  it('should treat adding a known job id as a no-op, and count jobs by state', async () => {
    const seen: number[] = [];
    await adapter.queue.add('job', { n: 1 }, { jobId: 'same' });
    await adapter.queue.add('job', { n: 2 }, { jobId: 'same' });
    expect((await adapter.queue.counts()).waiting).toBe(1);
    adapter.work(async (job) => void seen.push(job.data.n));
    await waitFor(async () => (await adapter.queue.getJob('same'))?.state === 'completed');
    await adapter.queue.add('job', { n: 3 }, { jobId: 'same' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toEqual([1]);
    expect(await adapter.queue.counts()).toEqual({ waiting: 0, delayed: 0, active: 0, completed: 1, failed: 0 });
  });

  it('should tell its listener of each failed try, the last one as final', async () => {
    adapter.work(async () => {
      throw new Error('always');
    });
    await adapter.queue.add('job', { n: 1 }, { jobId: 'doomed', attempts: 3, backoffMs: 10 });
    await waitFor(async () => (await adapter.queue.getJob('doomed'))?.state === 'failed');
    await waitFor(async () => adapter.failedTries.length === 3);
    expect(adapter.failedTries).toEqual([
      ['contract', false],
      ['contract', false],
      ['contract', true],
    ]);
  });

  it('should delay a job, retry failures with exponential backoff and keep the last error', async () => {
    const runs: { at: number; attemptsMade: number; attempts: number }[] = [];
    adapter.work(async (job) => {
      runs.push({ at: Date.now(), attemptsMade: job.attemptsMade, attempts: job.attempts });
      if (runs.length < 3) throw new Error(`simulated failure ${runs.length}`);
    });
    const added = Date.now();
    await adapter.queue.add('job', { n: 1 }, { jobId: 'retry', delayMs: 150, attempts: 5, backoffMs: 100 });
    expect((await adapter.queue.getJob('retry'))?.state).toBe('delayed');
    await waitFor(async () => (await adapter.queue.getJob('retry'))?.state === 'completed');
    expect(runs.map((run) => [run.attemptsMade, run.attempts])).toEqual([
      [0, 5],
      [1, 5],
      [2, 5],
    ]);
    expect(runs[0].at - added).toBeGreaterThanOrEqual(140);
    expect(runs[1].at - runs[0].at).toBeGreaterThanOrEqual(90);
    expect(runs[2].at - runs[1].at).toBeGreaterThanOrEqual(190);
    expect(await adapter.queue.getJob('retry')).toEqual(expect.objectContaining({ state: 'completed', failedReason: 'simulated failure 2' }));
  });

  it('should fail a job for good after its last try, with its error readable', async () => {
    adapter.work(async () => {
      throw new Error('simulated outage');
    });
    await adapter.queue.add('job', { n: 1 }, { jobId: 'doomed', attempts: 2, backoffMs: 20 });
    await waitFor(async () => (await adapter.queue.getJob('doomed'))?.state === 'failed');
    expect(await adapter.queue.getJob('doomed')).toEqual(expect.objectContaining({ state: 'failed', attemptsMade: 2, failedReason: 'simulated outage' }));
    expect((await adapter.queue.counts()).failed).toBe(1);
  });
});

describe(`Queue board at /admin/queues [${TEST_PROFILE}]`, () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp()));
  afterAll(() => t.close());

  it('should refuse callers without an admin key', async () => {
    const publisher = await createAccount(t, ['publisher']);
    const none = await t.http().get('/admin/queues');
    expect([none.status, none.body.code]).toEqual([401, 401]);
    const unknown = await t.http().get('/admin/queues').set('x-api-key', 'not-a-real-key-0123456789abcdef');
    expect([unknown.status, unknown.body.code]).toEqual([401, 401]);
    const forbidden = await t.http().get('/admin/queues').set('x-api-key', publisher.apiKey);
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 403]);
  });

  if (TEST_PROFILE === 'embedded') {
    it('should answer an admin with a 404 that explains the board needs the BullMQ profile', async () => {
      const response = await t.http().get('/admin/queues').set('x-api-key', ADMIN_KEY);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ code: 404, message: expect.stringContaining('REDIS_URL'), data: {} });
    });
  } else {
    it('should show bull-board with the queues to an admin key, by header or by a one-time ?key= that sets a cookie', async () => {
      const page = await t.http().get('/admin/queues').set('x-api-key', ADMIN_KEY);
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toContain('text/html');
      const api = await t.http().get('/admin/queues/api/queues').set('x-api-key', ADMIN_KEY);
      expect(api.status).toBe(200);
      expect(api.body.queues.map((queue: { name: string }) => queue.name)).toContain('profile-batch');

      const login = await t.http().get('/admin/queues').query({ key: ADMIN_KEY });
      expect(login.status).toBe(302);
      expect(login.headers.location).toBe('/admin/queues');
      const cookie = String(login.headers['set-cookie']);
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
      expect(cookie).toMatch(/Path=\/admin\/queues/);
      const withCookie = await t.http().get('/admin/queues/api/queues').set('cookie', cookie.split(';')[0]);
      expect(withCookie.status).toBe(200);
    });
  }
});

describe(`Queue workers in their own process [${TEST_PROFILE}]`, () => {
  // the processes are the built ones, as `npm start` and `npm run start:worker` run them
  beforeAll(() => ensureBuilt(), 320_000);

  if (TEST_PROFILE === 'embedded') {
    it('should refuse to start a worker without REDIS_URL, and QUEUE_WORKERS=false without Redis, saying why', async () => {
      const result = await run([BUILT_WORKER], { REDIS_URL: '' });
      expect(result.code).toBe(78);
      expect(result.stderr).toContain('start:worker needs REDIS_URL');
      const api = await run([BUILT_MAIN], { REDIS_URL: '', QUEUE_WORKERS: 'false' });
      expect(api.code).toBe(78);
      expect(api.stderr).toContain('QUEUE_WORKERS=false needs REDIS_URL');
    }, 60_000);
    return;
  }

  it('should leave jobs queued in an API process with QUEUE_WORKERS=false and apply them in `start:worker`', async () => {
    const api = await startTestApp({ QUEUE_WORKERS: 'false' });
    const worker = spawn(process.execPath, [BUILT_WORKER], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL, ...testRedisEnv(), REDIS_PREFIX: prefixOf(api), LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    worker.stdout.on('data', (chunk) => (output += chunk));
    worker.stderr.on('data', (chunk) => (output += chunk));
    try {
      const publisher = await createAccount(api, ['publisher']);
      const user = newUser('worker');
      const batchId = await uploadBatch(api, publisher.apiKey, [{ messengerUserId: user, isPremium: true }]);
      await waitFor(async () => output.includes('queue worker running'), 60_000);
      const done = await waitForBatch(api, publisher.apiKey, batchId, undefined, 30_000);
      expect(done).toEqual(expect.objectContaining({ status: 'done', total: 1, processed: 1 }));
      expect(await storedProfile(api, user)).toEqual(expect.objectContaining({ isPremium: true }));
    } finally {
      worker.kill('SIGTERM');
      await new Promise((resolve) => worker.once('exit', resolve));
      await api.close();
    }
  }, 90_000);

  it('should keep a batch queued while no process works the queue', async () => {
    const api = await startTestApp({ QUEUE_WORKERS: 'false' });
    try {
      const publisher = await createAccount(api, ['publisher']);
      const batchId = await uploadBatch(api, publisher.apiKey, [{ messengerUserId: newUser('idle') }]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await waitForBatch(api, publisher.apiKey, batchId, () => true)).toEqual(expect.objectContaining({ status: 'queued', attempts: 0, processed: 0 }));
    } finally {
      await api.close();
    }
  });
});

function prefixOf(t: TestApp): string {
  // startTestApp gives every instance its own REDIS_PREFIX; the worker must join the same one
  return t.app.get<RedisConfig>(REDIS_CONFIG).redisPrefix;
}

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}
