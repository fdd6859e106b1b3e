import { MemoryJobQueue } from './memory-job-queue';
import { QueueJob } from './queue.types';

const waitFor = async (check: () => Promise<boolean>, timeoutMs = 3000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe(MemoryJobQueue.name, () => {
  let queue: MemoryJobQueue<{ n: number }>;
  afterEach(() => queue.close());

  it('should ignore a job whose id it already knows, also after the first one completed', async () => {
    queue = new MemoryJobQueue('test');
    const seen: number[] = [];
    queue.work({ process: async (job) => void seen.push(job.data.n) });
    await queue.add('job', { n: 1 }, { jobId: 'a' });
    await queue.add('job', { n: 2 }, { jobId: 'a' });
    await waitFor(async () => (await queue.getJob('a'))?.state === 'completed');
    await queue.add('job', { n: 3 }, { jobId: 'a' });
    await queue.add('job', { n: 4 });
    await waitFor(async () => seen.length === 2);
    expect(seen).toEqual([1, 4]);
    expect(await queue.counts()).toEqual({ waiting: 0, delayed: 0, active: 0, completed: 2, failed: 0 });
  });

  it('should hold jobs until a processor works the queue, and keep the order of adding', async () => {
    queue = new MemoryJobQueue('test');
    for (const n of [1, 2, 3]) await queue.add('job', { n }, { jobId: `j${n}` });
    expect(await queue.counts()).toEqual({ waiting: 3, delayed: 0, active: 0, completed: 0, failed: 0 });
    expect(await queue.getJob('j2')).toEqual({ id: 'j2', name: 'job', data: { n: 2 }, state: 'waiting', attemptsMade: 0, failedReason: null });
    const seen: number[] = [];
    queue.work({ process: async (job) => void seen.push(job.data.n) });
    await waitFor(async () => seen.length === 3);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('should start a delayed job after its delay', async () => {
    queue = new MemoryJobQueue('test');
    const started: number[] = [];
    queue.work({ process: async () => void started.push(Date.now()) });
    const added = Date.now();
    await queue.add('job', { n: 1 }, { jobId: 'd', delayMs: 120 });
    expect((await queue.getJob('d'))?.state).toBe('delayed');
    await waitFor(async () => started.length === 1);
    expect(started[0] - added).toBeGreaterThanOrEqual(115);
  });

  it('should retry with exponential backoff, tell the processor the tries made, and keep the last error', async () => {
    queue = new MemoryJobQueue('test');
    const runs: { at: number; job: QueueJob<{ n: number }> }[] = [];
    queue.work({
      process: async (job) => {
        runs.push({ at: Date.now(), job });
        if (runs.length < 3) throw new Error(`boom ${runs.length}`);
      },
    });
    await queue.add('job', { n: 1 }, { jobId: 'r', attempts: 4, backoffMs: 40 });
    await waitFor(async () => (await queue.getJob('r'))?.state === 'completed');
    expect(runs.map((run) => [run.job.attemptsMade, run.job.attempts])).toEqual([
      [0, 4],
      [1, 4],
      [2, 4],
    ]);
    expect(runs[1].at - runs[0].at).toBeGreaterThanOrEqual(38);
    expect(runs[2].at - runs[1].at).toBeGreaterThanOrEqual(78);
    expect(await queue.getJob('r')).toEqual(expect.objectContaining({ state: 'completed', attemptsMade: 3, failedReason: 'boom 2' }));
  });

  it('should fail a job for good after its last try', async () => {
    queue = new MemoryJobQueue('test');
    queue.work({
      process: async () => {
        throw new Error('always');
      },
    });
    await queue.add('job', { n: 1 }, { jobId: 'f', attempts: 2, backoffMs: 10 });
    await waitFor(async () => (await queue.getJob('f'))?.state === 'failed');
    expect(await queue.getJob('f')).toEqual(expect.objectContaining({ state: 'failed', attemptsMade: 2, failedReason: 'always' }));
    expect((await queue.counts()).failed).toBe(1);
  });

  it('should tell its listener of every failed try, and which one was final (for /metrics)', async () => {
    const tries: [string, boolean][] = [];
    queue = new MemoryJobQueue('listened', (name, final) => tries.push([name, final]));
    queue.work({
      process: async (job) => {
        if (job.data.n === 1) throw new Error('always');
        if (job.attemptsMade === 0) throw new Error('once');
      },
    });
    await queue.add('job', { n: 1 }, { jobId: 'fails', attempts: 3, backoffMs: 5 });
    await queue.add('job', { n: 2 }, { jobId: 'recovers', attempts: 2, backoffMs: 5 });
    await waitFor(async () => (await queue.counts()).failed === 1 && (await queue.counts()).completed === 1);
    expect(tries.filter(([, final]) => !final)).toHaveLength(3);
    expect(tries.filter(([, final]) => final)).toEqual([['listened', true]]);
  });

  it('should run at most `concurrency` jobs at once', async () => {
    queue = new MemoryJobQueue('test');
    let running = 0;
    let most = 0;
    queue.work(
      {
        process: async () => {
          running += 1;
          most = Math.max(most, running);
          await new Promise((resolve) => setTimeout(resolve, 10));
          running -= 1;
        },
      },
      2,
    );
    await queue.addBulk(Array.from({ length: 6 }, (_, n) => ({ name: 'job', data: { n } })));
    await waitFor(async () => (await queue.counts()).completed === 6);
    expect(most).toBe(2);
  });

  it('should finish the running job on stopWorking, start no other, and still accept jobs until close', async () => {
    queue = new MemoryJobQueue('test');
    const seen: number[] = [];
    let release: () => void = () => undefined;
    queue.work({
      process: async (job) => {
        if (job.data.n === 1) await new Promise<void>((resolve) => (release = resolve));
        seen.push(job.data.n);
      },
    });
    await queue.add('job', { n: 1 }, { jobId: 'running' });
    await queue.add('job', { n: 2 }, { jobId: 'waiting' });
    const stopped = queue.stopWorking();
    await queue.add('job', { n: 3 }, { jobId: 'added-while-stopping' });
    release();
    await stopped;
    expect(seen).toEqual([1]);
    expect((await queue.getJob('running'))?.state).toBe('completed');
    expect((await queue.getJob('added-while-stopping'))?.state).toBe('waiting');
    expect(await queue.counts()).toEqual({ waiting: 2, delayed: 0, active: 0, completed: 1, failed: 0 });
    await queue.close();
    await expect(queue.add('job', { n: 4 })).rejects.toThrow('closed');
  });
});
