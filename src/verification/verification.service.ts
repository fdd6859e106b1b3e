import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isAdmin, Principal } from '../accounts/principal';
import { Clock, hourStart } from '../common/clock';
import { NotFoundError } from '../common/errors';
import { newId } from '../common/ids';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Click } from '../events/entities/click.entity';
import { VerificationHealthDto } from './dto/verification.dto';
import { VerificationCall } from './entities/verification-call.entity';
import { callVerification } from './verification-call';

/** A try that did not decide (timeout, non-2xx, other body, refused target): the queue retries it with backoff. */
export class VerificationRetryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VerificationRetryError';
  }
}

export type VerificationResult = 'verified' | 'unverified' | 'error' | 'skipped';

interface PendingClick {
  id: string;
  campaignId: string;
  adBlockId: string;
  messengerUserId: string;
  createdAt: number | string;
  verificationStatus: string;
  verificationUrl: string | null;
  webhookSecret: string;
}

/**
 * Calls the advertiser's verification endpoint for one counted click (DESIGN §7) and records the outcome on the
 * click, in the campaign's `verifiedClicks` and in the hourly series. Safe to run twice: only a click still
 * `pending` changes, with a conditional update.
 */
@Injectable()
export class VerificationService {
  private readonly mysql: boolean;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.mysql = config.database.type === 'mysql';
  }

  /** One try; `attempt` counts from 1. Throws VerificationRetryError when the queue should try again. */
  async attempt(clickId: string, attempt: number): Promise<VerificationResult> {
    const rows: PendingClick[] = await this.dataSource.query(
      `SELECT c.id, c.campaignId, c.adBlockId, c.messengerUserId, c.createdAt, c.verificationStatus,
              p.verificationUrl, a.webhookSecret
       FROM clicks c JOIN campaigns p ON p.id = c.campaignId JOIN accounts a ON a.id = c.advertiserId
       WHERE c.id = ?`,
      [clickId],
    );
    const click = rows[0];
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
    await this.dataSource.getRepository(VerificationCall).insert({
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
    await this.dataSource
      .createQueryBuilder()
      .update(Click)
      .set({ verificationAttempts: attempt, verificationError: result.error })
      .where('id = :id AND verificationStatus = :pending', { id: click.id, pending: 'pending' })
      .execute();
    throw new VerificationRetryError(result.error ?? 'verification failed');
  }

  /** Recent calls of a campaign and their tally: the integration-health view. Owner or admin only. */
  async health(principal: Principal, campaignId: string, limit: number): Promise<VerificationHealthDto> {
    const campaign: { accountId: string; verificationUrl: string | null }[] = await this.dataSource.query(
      'SELECT accountId, verificationUrl FROM campaigns WHERE id = ?',
      [campaignId],
    );
    if (!campaign[0] || (campaign[0].accountId !== principal.accountId && !isAdmin(principal))) {
      throw new NotFoundError('campaignId', 'campaign');
    }
    // Statuses first: a call is stored before its click is settled, so every settled click's calls are in the list.
    const statuses: { verificationStatus: string; count: number | string }[] = await this.dataSource.query(
      'SELECT verificationStatus, COUNT(*) AS count FROM clicks WHERE campaignId = ? GROUP BY verificationStatus',
      [campaignId],
    );
    const calls = await this.dataSource.getRepository(VerificationCall).find({
      where: { campaignId },
      order: { calledAt: 'DESC', id: 'DESC' },
      take: limit,
    });
    const clicks = { pending: 0, verified: 0, unverified: 0, error: 0 };
    for (const row of statuses) {
      if (row.verificationStatus in clicks) clicks[row.verificationStatus as keyof typeof clicks] = Number(row.count);
    }
    return {
      verificationUrl: campaign[0].verificationUrl,
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

  private async settle(click: PendingClick, status: string, attempts: number, error: string | null): Promise<void> {
    const now = this.clock.now();
    await this.dataSource.transaction(async (manager) => {
      const updated = await manager
        .createQueryBuilder()
        .update(Click)
        .set({ verificationStatus: status, verificationAttempts: attempts, verificationError: error, verifiedAt: now })
        .where('id = :id AND verificationStatus = :pending', { id: click.id, pending: 'pending' })
        .execute();
      // Another run settled it first: its counters are already in.
      if (status !== 'verified' || !updated.affected) return;
      await manager.query('UPDATE campaigns SET verifiedClicks = verifiedClicks + 1 WHERE id = ?', [click.campaignId]);
      await this.countHourly(manager, click, hourStart(Number(click.createdAt)));
    });
  }

  /** Verified clicks count in the hour and block of the click itself, beside its click count. */
  private async countHourly(manager: EntityManager, click: PendingClick, hour: number): Promise<void> {
    const conflict = this.mysql
      ? 'ON DUPLICATE KEY UPDATE verifiedClicks = verifiedClicks + 1'
      : 'ON CONFLICT (campaignId, adBlockId, hour) DO UPDATE SET verifiedClicks = verifiedClicks + 1';
    await manager.query(
      `INSERT INTO stats_hourly (campaignId, adBlockId, hour, impressions, clicks, conversions, verifiedClicks, spendMicros, earningsMicros)
       VALUES (?, ?, ?, 0, 0, 0, 1, 0, 0) ${conflict}`,
      [click.campaignId, click.adBlockId, hour],
    );
  }
}
