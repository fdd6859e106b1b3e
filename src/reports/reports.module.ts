import { Module } from '@nestjs/common';
import { AdBlocksModule } from '../ad-blocks/ad-blocks.module';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { StatsModule } from '../stats/stats.module';
import { ReportsController } from './reports.controller';
import { ReportsService } from './reports.service';

/** Reports (docs/CONTRACT.md §19): reads the stats feature's report rollup; owns no table. */
@Module({
  imports: [StatsModule, CampaignsModule, AdBlocksModule],
  controllers: [ReportsController],
  providers: [ReportsService],
})
export class ReportsModule {}
