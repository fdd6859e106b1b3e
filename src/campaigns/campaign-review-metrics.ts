import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { MetricsService } from '../metrics/metrics.service';
import { CampaignRepository } from './campaign.repository';

/** The review queue's gauges (docs/OPERATIONS.md, "Metrics"), read from the campaigns table at each scrape. */
@Injectable()
export class CampaignReviewMetrics {
  constructor(metrics: MetricsService, campaigns: CampaignRepository, clock: Clock) {
    const queue = () => campaigns.reviewQueue();
    metrics.labelledGauge('adnet_campaign_reviews_waiting', 'Campaigns waiting for review, by kind (new campaign, revision).', ['kind'], async () =>
      (await queue()).map((entry) => ({ labels: { kind: entry.kind }, value: entry.waiting })),
    );
    metrics.labelledGauge(
      'adnet_campaign_review_oldest_age_seconds',
      'How long the oldest campaign waiting for review has waited, by kind (0: none waits).',
      ['kind'],
      async () => {
        const now = clock.now();
        return (await queue()).map((entry) => ({ labels: { kind: entry.kind }, value: entry.oldestSince === null ? 0 : (now - entry.oldestSince) / 1000 }));
      },
    );
  }
}
