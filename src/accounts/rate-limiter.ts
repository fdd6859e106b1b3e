import { Inject, Injectable } from '@nestjs/common';
import { ACCOUNTS_CONFIG, AccountsConfig } from './accounts.config';

/** Request counts per bucket in fixed one-second windows. */
class WindowCounter {
  private windowStart = 0;
  private counts = new Map<string, number>();

  constructor(private readonly limit: number) {}

  /** Counts one request of the bucket; false once the bucket is over its limit for the current second. */
  admit(bucket: string): boolean {
    if (this.limit === 0) return true;
    const used = this.used(bucket) + 1;
    this.counts.set(bucket, used);
    return used <= this.limit;
  }

  /** True when the bucket has already used its limit this second (counts nothing). */
  exhausted(bucket: string): boolean {
    return this.limit !== 0 && this.used(bucket) >= this.limit;
  }

  private used(bucket: string): number {
    const now = Date.now();
    const window = now - (now % 1000);
    if (window !== this.windowStart) {
      this.windowStart = window;
      this.counts = new Map();
    }
    return this.counts.get(bucket) ?? 0;
  }
}

/**
 * Request budgets in process memory, shared by the edge hook, the guard and the hot routes' fast lanes. Every process
 * enforces them on its own, so N processes admit up to N times the limit.
 * - RATE_LIMIT_PER_SECOND per bucket of a valid key (see rateLimitBucket: per key, or per key and client IP).
 * - UNKNOWN_KEY_RATE_LIMIT_PER_SECOND per client IP for requests with a missing or unknown key.
 */
@Injectable()
export class RateLimiter {
  private readonly keys: WindowCounter;
  private readonly unknownKeyClients: WindowCounter;

  constructor(@Inject(ACCOUNTS_CONFIG) config: AccountsConfig) {
    this.keys = new WindowCounter(config.rateLimitPerSecond);
    this.unknownKeyClients = new WindowCounter(config.unknownKeyRateLimitPerSecond);
  }

  /** Counts one request of a valid key's bucket; false once it is over its budget for the current second. */
  admit(bucket: string): boolean {
    return this.keys.admit(bucket);
  }

  /** Counts one request without a valid key from this client IP; false once the IP is over its budget. */
  admitUnknownKey(clientIp: string): boolean {
    return this.unknownKeyClients.admit(clientIp);
  }

  /** True when this IP has used its budget of requests without a valid key this second (nothing counted). */
  unknownKeyBudgetSpent(clientIp: string): boolean {
    return this.unknownKeyClients.exhausted(clientIp);
  }
}
