import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Clock, HOUR_MS } from '../common/clock';
import type { IdempotencyStore } from '../common/edge/idempotency';
import { IdempotencyRepository } from './idempotency.repository';

/** How long a key and its answer are kept (docs/CONTRACT.md §20). */
export const IDEMPOTENCY_TTL_MS = 24 * HOUR_MS;
/**
 * A first request still "running" after this long was cut off (its process died, or its connection): a repeat takes
 * the key over instead of answering 409 for a day. Longer than any request may run (REQUEST_TIMEOUT_MS).
 */
const ABANDONED_AFTER_MS = 10 * 60 * 1000;

/**
 * The idempotency records behind the HTTP edge's `Idempotency-Key` (src/common/edge/idempotency.ts): in the database
 * of either profile, so every API process sees the same keys; expired ones are swept hourly.
 */
@Injectable()
export class IdempotencyService implements IdempotencyStore, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(IdempotencyService.name);
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly records: IdempotencyRepository,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), HOUR_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  async begin(accountId: string, key: string, requestHash: string) {
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = this.clock.now();
      if (await this.records.claim({ accountId, idempotencyKey: key, requestHash, createdAt: now, expiresAt: now + IDEMPOTENCY_TTL_MS })) {
        return { kind: 'claimed' as const, createdAt: now };
      }
      const found = await this.records.find(accountId, key);
      if (found === null) continue;
      const expired = found.expiresAt <= now;
      const abandoned = found.status === null && now - found.createdAt > ABANDONED_AFTER_MS;
      if (expired || abandoned) {
        await this.records.release(accountId, key, found.createdAt);
        continue;
      }
      if (found.requestHash !== requestHash) return { kind: 'mismatch' as const };
      if (found.status === null) return { kind: 'running' as const };
      return { kind: 'answer' as const, status: found.status, contentType: found.contentType, body: found.body ?? '' };
    }
    // the key kept changing hands: treat it as running
    return { kind: 'running' as const };
  }

  async done(accountId: string, key: string, createdAt: number, answer: { status: number; contentType: string | null; body: string | null }): Promise<void> {
    try {
      if (answer.status >= 500) await this.records.release(accountId, key, createdAt);
      else await this.records.complete(accountId, key, { status: answer.status, contentType: answer.contentType, body: answer.body ?? '' });
    } catch (error) {
      this.logger.warn({ err: error }, 'idempotency answer not kept');
    }
  }

  async sweep(): Promise<number> {
    try {
      return await this.records.sweep(this.clock.now());
    } catch (error) {
      this.logger.warn({ err: error }, 'idempotency sweep failed');
      return 0;
    }
  }
}
