import { Injectable } from '@nestjs/common';
import { QUEUE_NAMES } from '../queue/queue-names';
import { JobProcessor, JobProcessorFor, QueueJob } from '../queue/queue.types';
import { VerificationResult, VerificationService } from './verification.service';

export interface VerifyClickJob {
  clickId: string;
}

/** Runs one verification try per job run; a VerificationRetryError makes the queue retry with backoff. */
@Injectable()
@JobProcessorFor({ queue: QUEUE_NAMES.verification, concurrency: 16 })
export class VerificationProcessor implements JobProcessor<VerifyClickJob> {
  constructor(private readonly verification: VerificationService) {}

  process(job: QueueJob<VerifyClickJob>): Promise<VerificationResult> {
    return this.verification.attempt(job.data.clickId, job.attemptsMade + 1);
  }
}
