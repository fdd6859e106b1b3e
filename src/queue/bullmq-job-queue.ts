import { Logger } from '@nestjs/common';
import { ConnectionOptions, Job, JobsOptions, Queue, Worker } from 'bullmq';
import type { AppConfig } from '../app-config';
import { redisConnection } from '../redis/redis.module';
import { FailedTryListener, JobInfo, JobOptions, JobProcessor, JobQueue, JobState, JobToAdd } from './queue.types';

/**
 * BullMQ's connection: options from REDIS_URL (each queue and worker opens its own), or on a Redis Cluster one
 * Cluster client (BullMQ cannot open a cluster from options) that the queues share, workers duplicate for their
 * blocking reads, and whoever made it closes (BullMQ leaves a shared client open). Workers need
 * `maxRetriesPerRequest: null`, and BullMQ refuses a client with a key prefix (it has its own, bullPrefix).
 */
export function bullConnection(config: Pick<AppConfig, 'redisUrl' | 'redisClusterNodes'>): ConnectionOptions {
  if (config.redisClusterNodes) return redisConnection(config as AppConfig, { maxRetriesPerRequest: null, lazyConnect: true });
  return { url: config.redisUrl!, maxRetriesPerRequest: null };
}

/**
 * BullMQ's own name for a prefix: REDIS_PREFIX without its trailing colon (BullMQ adds one). On a cluster it is a
 * hash tag, so every key of every queue is in one slot (BullMQ's scripts use several keys of a queue at once).
 */
export function bullPrefix(redisPrefix: string, cluster = false): string {
  const prefix = `${redisPrefix.replace(/:$/, '')}:bull`;
  return cluster ? `{${prefix}}` : prefix;
}

const KEEP = {
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
};

function toJobsOptions(options: JobOptions = {}): JobsOptions {
  return {
    ...KEEP,
    jobId: options.jobId,
    delay: options.delayMs,
    attempts: options.attempts ?? 1,
    backoff: { type: 'exponential', delay: options.backoffMs ?? 1000, ...(options.jitter ? { jitter: options.jitter } : {}) },
  };
}

/** A JobQueue on a BullMQ queue (the MySQL + Redis profile); the worker is created only where workers run. */
export class BullMqJobQueue<T = unknown> implements JobQueue<T> {
  private readonly logger: Logger;
  private worker: Worker | null = null;

  constructor(
    readonly queue: Queue,
    private readonly onFailedTry: FailedTryListener = () => undefined,
  ) {
    this.logger = new Logger(`queue:${queue.name}`);
  }

  get name(): string {
    return this.queue.name;
  }

  work(processor: JobProcessor<T>, connection: ConnectionOptions, concurrency = 1): void {
    this.worker = new Worker(
      this.queue.name,
      (job: Job) =>
        processor.process({
          id: job.id!,
          name: job.name,
          data: job.data as T,
          attemptsMade: job.attemptsMade,
          attempts: job.opts.attempts ?? 1,
        }),
      { connection, prefix: this.queue.opts.prefix, concurrency },
    );
    this.worker.on('failed', (job, error) => {
      if (!job) return;
      this.onFailedTry(this.queue.name, job.attemptsMade >= (job.opts.attempts ?? 1));
      this.logger.warn(`job ${job.id} failed (try ${job.attemptsMade} of ${job.opts.attempts ?? 1}): ${error.message}`);
    });
    this.worker.on('error', (error) => this.logger.error(`worker error: ${error.message}`));
  }

  async add(name: string, data: T, options?: JobOptions): Promise<void> {
    // add() with a jobId that exists is a no-op in BullMQ: that is the dedup callers rely on
    await this.queue.add(name, data, toJobsOptions(options));
  }

  async addBulk(jobs: JobToAdd<T>[]): Promise<void> {
    await this.queue.addBulk(jobs.map((job) => ({ name: job.name, data: job.data, opts: toJobsOptions(job.options) })));
  }

  async getJob(id: string): Promise<JobInfo<T> | null> {
    const job = await this.queue.getJob(id);
    if (!job) return null;
    const state = await job.getState();
    return {
      id,
      name: job.name,
      data: job.data as T,
      state: toState(state),
      attemptsMade: job.attemptsMade,
      failedReason: job.failedReason || null,
    };
  }

  async counts(): Promise<Record<JobState, number>> {
    const counts = await this.queue.getJobCounts('waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized');
    return {
      waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
      delayed: counts.delayed ?? 0,
      active: counts.active ?? 0,
      completed: counts.completed ?? 0,
      failed: counts.failed ?? 0,
    };
  }

  /** Takes no more jobs and waits for the running ones (BullMQ's Worker.close); jobs can still be added. */
  async stopWorking(): Promise<void> {
    await this.worker?.close();
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue.close();
  }
}

function toState(state: string): JobState {
  if (state === 'completed' || state === 'failed' || state === 'active' || state === 'delayed') return state;
  return 'waiting';
}
