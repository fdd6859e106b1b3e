import { SetMetadata } from '@nestjs/common';

/** What a processor receives: the same shape from the BullMQ and the in-process adapter. */
export interface QueueJob<T> {
  id: string;
  name: string;
  data: T;
  /** Tries already made before this one (0 on the first run). */
  attemptsMade: number;
  /** Tries allowed in all. */
  attempts: number;
}

export type JobState = 'waiting' | 'delayed' | 'active' | 'completed' | 'failed';

export interface JobInfo<T = unknown> {
  id: string;
  name: string;
  state: JobState;
  data: T;
  attemptsMade: number;
  failedReason: string | null;
}

export interface JobOptions {
  /** Adding a job whose id is still known to the queue does nothing: callers derive ids from what the job is about. */
  jobId?: string;
  delayMs?: number;
  /** Tries in all (default 1). */
  attempts?: number;
  /** First retry delay; each further retry waits twice as long (exponential backoff). */
  backoffMs?: number;
  /** 0..1: each retry waits up to this fraction less, at random, so that failed jobs do not retry in step. */
  jitter?: number;
}

export interface JobToAdd<T> {
  name: string;
  data: T;
  options?: JobOptions;
}

/** A named queue, the same on both profiles: BullMQ on Redis, or in process memory (embedded). */
export interface JobQueue<T = unknown> {
  readonly name: string;
  add(name: string, data: T, options?: JobOptions): Promise<void>;
  addBulk(jobs: JobToAdd<T>[]): Promise<void>;
  getJob(id: string): Promise<JobInfo<T> | null>;
  counts(): Promise<Record<JobState, number>>;
}

/** Told of every failed try of a job; `final` when no try is left (the job failed for good). */
export type FailedTryListener = (queue: string, final: boolean) => void;

/** Handles the jobs of one queue. Written once; both adapters call it. A job may run twice: make it idempotent. */
export interface JobProcessor<T = unknown> {
  process(job: QueueJob<T>): Promise<unknown>;
}

export interface ProcessorOptions {
  queue: string;
  /** Jobs of this queue run at once in one process. */
  concurrency?: number;
}

export const JOB_PROCESSOR = 'adnet:job-processor';

/** Marks a provider as the processor of a queue; QueueService finds it and feeds it jobs when workers are on. */
export const JobProcessorFor = (options: ProcessorOptions) => SetMetadata(JOB_PROCESSOR, options);

export const EMPTY_COUNTS: Record<JobState, number> = { waiting: 0, delayed: 0, active: 0, completed: 0, failed: 0 };
