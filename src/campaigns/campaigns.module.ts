import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CampaignReviewMetrics } from './campaign-review-metrics';
import { CampaignReviewsController } from './campaign-reviews.controller';
import { CAMPAIGN_STORE } from './campaign-store';
import { CampaignRepository } from './campaign.repository';
import { CampaignsController } from './campaigns.controller';
import { CampaignsService } from './campaigns.service';
import { Campaign } from './entities/campaign.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Campaign]), AccountsModule],
  controllers: [CampaignsController, CampaignReviewsController],
  providers: [CampaignsService, CampaignRepository, CampaignReviewMetrics, { provide: CAMPAIGN_STORE, useExisting: CampaignRepository }],
  exports: [CampaignsService, CAMPAIGN_STORE],
})
export class CampaignsModule {}
