import { Injectable } from '@nestjs/common';
import { QUEUE_NAMES } from '../queue/queue-names';
import { JobProcessor, JobProcessorFor, QueueJob } from '../queue/queue.types';
import { RewardCallbacksService, type RewardCallbackJob } from './reward-callbacks.service';

/** Runs one reward callback try per job run; a failed try throws and the queue retries it with backoff. */
@Injectable()
@JobProcessorFor({ queue: QUEUE_NAMES.rewardCallback, concurrency: 16 })
export class RewardCallbackProcessor implements JobProcessor<RewardCallbackJob> {
  constructor(private readonly rewards: RewardCallbacksService) {}

  process(job: QueueJob<RewardCallbackJob>): Promise<unknown> {
    return this.rewards.deliver(job);
  }
}
