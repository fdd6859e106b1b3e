import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app.config';

/**
 * Per-key request budget in fixed one-second windows, in process memory, shared by the guard and the hot routes'
 * fast lanes. Every process enforces it on its own, so N processes admit up to N times RATE_LIMIT_PER_SECOND.
 */
@Injectable()
export class RateLimiter {
  private windowStart = 0;
  private counts = new Map<string, number>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Counts one request of this key; false once the key is over its budget for the current second. */
  admit(keyId: string): boolean {
    const limit = this.config.rateLimitPerSecond;
    if (limit === 0) return true;
    const now = Date.now();
    const window = now - (now % 1000);
    if (window !== this.windowStart) {
      this.windowStart = window;
      this.counts = new Map();
    }
    const used = (this.counts.get(keyId) ?? 0) + 1;
    this.counts.set(keyId, used);
    return used <= limit;
  }
}
