import type { EnvReader } from '../config/env-reader';

export interface QueueConfig {
  /** This process processes queue jobs (false: it only adds them; `npm run start:worker` processes). */
  queueWorkers: boolean;
  /**
   * The CPU priority (nice value, 0–19) an `npm run start:worker` process gives itself: its jobs are background work,
   * and on a machine it shares with API processes their ad requests go first.
   */
  workerNice: number;
}

export const QUEUE_CONFIG = Symbol('QUEUE_CONFIG');

export function readQueueConfig(env: EnvReader): QueueConfig {
  return { queueWorkers: env.boolean('QUEUE_WORKERS', true), workerNice: env.integer('WORKER_NICE', 10, 0, 19) };
}
