import { Logger } from '@nestjs/common';
import { EMPTY_COUNTS, FailedTryListener, JobInfo, JobOptions, JobProcessor, JobQueue, JobState, JobToAdd } from './queue.types';

interface MemoryJob<T> {
  id: string;
  name: string;
  data: T;
  state: JobState;
  attemptsMade: number;
  attempts: number;
  backoffMs: number;
  jitter: number;
  failedReason: string | null;
}

/** Finished jobs kept for their state and for id dedup, as BullMQ keeps them until removed. */
const KEEP_FINISHED = 10_000;

/**
 * The in-process queue of the embedded profile, with BullMQ's semantics where the service relies on them:
 * jobId dedup, delay, attempts with exponential backoff, readable state, counts and last error.
 * Jobs live in process memory: callers that need durability keep their own record (profile batches do).
 */
export class MemoryJobQueue<T = unknown> implements JobQueue<T> {
  private readonly logger: Logger;
  private readonly jobs = new Map<string, MemoryJob<T>>();
  private readonly waiting: MemoryJob<T>[] = [];
  private readonly finished: string[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private processor: JobProcessor<T> | null = null;
  private concurrency = 1;
  private closed = false;
  /** no more jobs start (stopWorking or close); jobs can still be added until close */
  private stopped = false;
  private nextId = 1;

  constructor(
    readonly name: string,
    private readonly onFailedTry: FailedTryListener = () => undefined,
  ) {
    this.logger = new Logger(`queue:${name}`);
  }

  /** Starts feeding jobs to the processor (QUEUE_WORKERS). */
  work(processor: JobProcessor<T>, concurrency = 1): void {
    this.processor = processor;
    this.concurrency = Math.max(1, concurrency);
    this.pump();
  }

  async add(name: string, data: T, options: JobOptions = {}): Promise<void> {
    if (this.closed) throw new Error(`queue ${this.name} is closed`);
    const id = options.jobId ?? `${this.nextId++}`;
    if (this.jobs.has(id)) return;
    const job: MemoryJob<T> = {
      id,
      name,
      data,
      state: 'waiting',
      attemptsMade: 0,
      attempts: Math.max(1, options.attempts ?? 1),
      backoffMs: options.backoffMs ?? 1000,
      jitter: options.jitter ?? 0,
      failedReason: null,
    };
    this.jobs.set(id, job);
    if (options.delayMs && options.delayMs > 0) this.delay(job, options.delayMs);
    else this.enqueue(job);
  }

  async addBulk(jobs: JobToAdd<T>[]): Promise<void> {
    for (const job of jobs) await this.add(job.name, job.data, job.options);
  }

  async getJob(id: string): Promise<JobInfo<T> | null> {
    const job = this.jobs.get(id);
    if (!job) return null;
    const { name, data, state, attemptsMade, failedReason } = job;
    return { id, name, data, state, attemptsMade, failedReason };
  }

  async counts(): Promise<Record<JobState, number>> {
    const counts = { ...EMPTY_COUNTS };
    for (const job of this.jobs.values()) counts[job.state] += 1;
    return counts;
  }

  /** Starts no more jobs and waits for the running ones; jobs can still be added (they wait). */
  async stopWorking(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.running]);
  }

  /** Stops taking jobs and waits for the running ones. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }

  private enqueue(job: MemoryJob<T>): void {
    job.state = 'waiting';
    this.waiting.push(job);
    this.pump();
  }

  private delay(job: MemoryJob<T>, ms: number): void {
    job.state = 'delayed';
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.closed) this.enqueue(job);
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  private pump(): void {
    while (!this.stopped && this.processor && this.running.size < this.concurrency && this.waiting.length > 0) {
      const job = this.waiting.shift()!;
      const run = this.run(job, this.processor).finally(() => {
        this.running.delete(run);
        this.pump();
      });
      this.running.add(run);
    }
  }

  private async run(job: MemoryJob<T>, processor: JobProcessor<T>): Promise<void> {
    job.state = 'active';
    try {
      await processor.process({ id: job.id, name: job.name, data: job.data, attemptsMade: job.attemptsMade, attempts: job.attempts });
      job.attemptsMade += 1;
      this.finish(job, 'completed');
    } catch (error) {
      job.attemptsMade += 1;
      job.failedReason = error instanceof Error ? error.message : String(error);
      const final = job.attemptsMade >= job.attempts || this.closed;
      this.onFailedTry(this.name, final);
      if (!final) {
        const wait = Math.floor(job.backoffMs * 2 ** (job.attemptsMade - 1) * (1 - job.jitter * Math.random()));
        this.logger.warn(`job ${job.id} failed (try ${job.attemptsMade} of ${job.attempts}), retry in ${wait} ms: ${job.failedReason}`);
        this.delay(job, wait);
      } else {
        this.logger.error(`job ${job.id} failed for good after ${job.attemptsMade} tries: ${job.failedReason}`);
        this.finish(job, 'failed');
      }
    }
  }

  private finish(job: MemoryJob<T>, state: 'completed' | 'failed'): void {
    job.state = state;
    this.finished.push(job.id);
    if (this.finished.length > KEEP_FINISHED) this.jobs.delete(this.finished.shift()!);
  }
}
