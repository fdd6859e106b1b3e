import { Inject, Injectable } from '@nestjs/common';
import { staleReads } from '../common/stale-reads';
import { MetricsService } from '../metrics/metrics.service';
import { REDIS_DEADLINE, RedisDeadline } from '../redis/redis-deadline';

/** /metrics: whether requests may use Redis now, and how many were answered without it (docs/OPERATIONS.md, Faults). */
@Injectable()
export class DependencyMetrics {
  constructor(@Inject(REDIS_DEADLINE) deadline: RedisDeadline | null, metrics: MetricsService) {
    metrics.labelledCounter(
      'adnet_cache_stale_answers_total',
      "Entries of the ad path's database caches (keys, adBlocks, webhookSecrets) answered past their life while reloaded: during a database outage, every request using one.",
      'cache',
      () => Object.fromEntries(staleReads.answered),
    );
    if (deadline === null) return;
    metrics.gauge('adnet_redis_available', '1 while requests may use Redis; 0 while its breaker is open (REDIS_DEADLINE_MS missed, or not connected).', () =>
      deadline.available ? 1 : 0,
    );
    metrics.counter(
      'adnet_redis_refused_total',
      'Requests answered without Redis: ads with none, clicks and events 503 (its deadline passed, or its breaker was open).',
      () => deadline.refused,
    );
    metrics.counter(
      'adnet_redis_late_total',
      "Request operations Redis finished after their deadline: each one's effect was undone (its request had been refused).",
      () => deadline.late,
    );
  }
}
