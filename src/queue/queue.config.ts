import type { EnvReader } from '../config/env-reader';

export interface QueueConfig {
  /** This process processes queue jobs (false: it only adds them; `npm run start:worker` processes). */
  queueWorkers: boolean;
}

export const QUEUE_CONFIG = Symbol('QUEUE_CONFIG');

export function readQueueConfig(env: EnvReader): QueueConfig {
  return { queueWorkers: env.boolean('QUEUE_WORKERS', true) };
}
