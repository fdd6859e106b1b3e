import { Inject, Injectable } from '@nestjs/common';
import { VERIFICATION_CONFIG, VerificationConfig } from './verification.config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Principal } from '../accounts/principal';
import { CampaignsService } from '../campaigns/campaigns.service';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { CLICK_STORE, type ClickStore, type ClickToVerify } from '../clicks/click-store';
import { StatsWriterService } from '../stats/stats-writer.service';
import { VerificationHealthDto } from './dto/verification.dto';
import { callVerification } from './verification-call';
import { VerificationCallRepository } from './verification-call.repository';

/** A try that did not decide (timeout, non-2xx, other body, refused target): the queue retries it with backoff. */
export class VerificationRetryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VerificationRetryError';
  }
}

export type VerificationResult = 'verified' | 'unverified' | 'error' | 'skipped';

/**
 * Calls the advertiser's verification endpoint for one counted click (docs/CONTRACT.md §7) and records the outcome on the
 * click, in the campaign's `verifiedClicks` and in the hourly series. Safe to run twice: only a click still
 * `pending` changes, with a conditional update.
 */
@Injectable()
export class VerificationService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(VERIFICATION_CONFIG) private readonly config: VerificationConfig,
    private readonly clock: Clock,
    private readonly calls: VerificationCallRepository,
    @Inject(CLICK_STORE) private readonly clicks: ClickStore,
    private readonly campaigns: CampaignsService,
    private readonly counters: StatsWriterService,
  ) {}

  /** One try; `attempt` counts from 1. Throws VerificationRetryError when the queue should try again. */
  async attempt(clickId: string, attempt: number): Promise<VerificationResult> {
    const click = await this.clicks.findToVerify(clickId);
    if (!click || click.verificationStatus !== 'pending') return 'skipped';
    if (!click.verificationUrl) {
      await this.settle(click, 'none', attempt - 1, 'verification URL removed before the call');
      return 'skipped';
    }

    const now = this.clock.now();
    const result = await callVerification({
      url: click.verificationUrl,
      messengerId: click.messengerUserId,
      secret: click.webhookSecret,
      timestamp: now,
      timeoutMs: this.config.verifyTimeoutMs,
      allowPrivate: this.config.verificationAllowPrivate,
    });
    await this.calls.insert({
      id: newId(now),
      campaignId: click.campaignId,
      clickId: click.id,
      attempt,
      calledAt: now,
      outcome: result.outcome,
      httpStatus: result.httpStatus,
      latencyMs: result.latencyMs,
      error: result.error,
    });

    if (result.outcome !== 'failed') {
      await this.settle(click, result.outcome, attempt, null);
      return result.outcome;
    }
    if (attempt >= this.config.verifyAttempts) {
      await this.settle(click, 'error', attempt, result.error);
      return 'error';
    }
    await this.clicks.recordVerificationTry(click.id, attempt, result.error);
    throw new VerificationRetryError(result.error ?? 'verification failed');
  }

  /** Recent calls of a campaign and their tally: the integration-health view. Owner or admin only. */
  async health(principal: Principal, campaignId: string, limit: number): Promise<VerificationHealthDto> {
    const verificationUrl = await this.campaigns.verificationUrlOf(principal, campaignId);
    // Statuses first: a call is stored before its click is settled, so every settled click's calls are in the list.
    const statuses = await this.clicks.verificationStatusCounts(campaignId);
    const calls = await this.calls.latest(campaignId, limit);
    const clicks = { pending: 0, verified: 0, unverified: 0, error: 0 };
    for (const [status, count] of statuses) {
      if (status in clicks) clicks[status as keyof typeof clicks] = count;
    }
    return {
      verificationUrl,
      clicks,
      calls: calls.map((call) => ({
        calledAt: call.calledAt,
        clickId: call.clickId,
        attempt: call.attempt,
        outcome: call.outcome,
        httpStatus: call.httpStatus,
        latencyMs: call.latencyMs,
        error: call.error,
      })),
    };
  }

  private async settle(click: ClickToVerify, status: string, attempts: number, error: string | null): Promise<void> {
    const now = this.clock.now();
    await this.dataSource.transaction(async (manager) => {
      const settled = await this.clicks.settleVerification(manager, click.id, { status, attempts, error, verifiedAt: now });
      // Another run settled it first: its counters are already in.
      if (status !== 'verified' || !settled) return;
      await this.counters.countVerifiedClick(manager, { campaignId: click.campaignId, adBlockId: click.adBlockId, createdAt: Number(click.createdAt) });
    });
  }
}
