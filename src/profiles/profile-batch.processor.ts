import { Injectable } from '@nestjs/common';
import { QUEUE_NAMES } from '../queue/queue-names';
import { JobProcessor, JobProcessorFor, QueueJob } from '../queue/queue.types';
import { ProfileBatchJob, ProfilesService } from './profiles.service';

/**
 * Applies one profile batch. One job at a time per process keeps batches of one uploader in order within that
 * process; the job is safe to run twice (idempotent upserts, done batches skipped).
 */
@Injectable()
@JobProcessorFor({ queue: QUEUE_NAMES.profileBatch, concurrency: 1 })
export class ProfileBatchProcessor implements JobProcessor<ProfileBatchJob> {
  constructor(private readonly profiles: ProfilesService) {}

  process(job: QueueJob<ProfileBatchJob>): Promise<void> {
    return this.profiles.applyBatch(job);
  }
}
