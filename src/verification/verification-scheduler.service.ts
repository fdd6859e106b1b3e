import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { QUEUE_CONFIG, QueueConfig } from '../queue/queue.config';
import { VERIFICATION_CONFIG, VerificationConfig } from './verification.config';
import { Clock } from '../common/clock';
import { CLICK_STORE, type ClickStore } from '../clicks/click-store';
import { QUEUE_NAMES } from '../queue/queue-names';
import { QueueService } from '../queue/queue.service';
import type { VerifyClickJob } from './verification.processor';

/** How often a worker looks for pending clicks whose job was lost (a crash between commit and enqueue, a restart). */
const SWEEP_EVERY_MS = 60_000;
const SWEEP_BATCH = 500;

/**
 * Puts verification jobs on the queue: one per counted click of a campaign with a verification URL, its id
 * derived from the click so a click is never verified twice however often it is scheduled. Workers also sweep
 * for clicks still pending long after their last try should have run, and schedule them again.
 */
@Injectable()
export class VerificationScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(VerificationScheduler.name);
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly queues: QueueService,
    @Inject(CLICK_STORE) private readonly clicks: ClickStore,
    @Inject(QUEUE_CONFIG) private readonly queueConfig: QueueConfig,
    @Inject(VERIFICATION_CONFIG) private readonly verificationConfig: VerificationConfig,
    private readonly clock: Clock,
  ) {}

  async schedule(clickId: string, delayMs = this.verificationConfig.verifyDelayMs): Promise<void> {
    await this.queues
      .queue<VerifyClickJob>(QUEUE_NAMES.verification)
      .add(
        'verify-click',
        { clickId },
        { jobId: `verify-${clickId}`, delayMs, attempts: this.verificationConfig.verifyAttempts, backoffMs: this.verificationConfig.verifyBackoffMs },
      );
  }

  onApplicationBootstrap(): void {
    if (!this.queueConfig.queueWorkers) return;
    const sweep = () => void this.sweep().catch((error) => this.logger.warn({ err: error }, 'verification sweep failed'));
    sweep();
    this.timer = setInterval(sweep, SWEEP_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Schedules again the clicks pending for longer than every try of theirs could take. */
  async sweep(): Promise<number> {
    const { verifyDelayMs, verifyBackoffMs, verifyTimeoutMs, verifyAttempts } = this.verificationConfig;
    const longestRun = verifyDelayMs + verifyBackoffMs * (2 ** (verifyAttempts - 1) - 1) + verifyTimeoutMs * verifyAttempts;
    const before = this.clock.now() - longestRun - SWEEP_EVERY_MS;
    const stale = await this.clicks.pendingSince(before, SWEEP_BATCH);
    for (const id of stale) await this.schedule(id, 0);
    if (stale.length > 0) this.logger.log(`scheduled ${stale.length} pending verification(s) again`);
    return stale.length;
  }
}
