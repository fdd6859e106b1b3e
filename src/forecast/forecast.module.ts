import { Module } from '@nestjs/common';
import { AdBlocksModule } from '../ad-blocks/ad-blocks.module';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { ServingModule } from '../serving/serving.module';
import { ForecastSamplingModule } from './forecast-sampling.module';
import { ForecastController } from './forecast.controller';
import { ForecastService } from './forecast.service';

@Module({
  imports: [CampaignsModule, AdBlocksModule, ServingModule, ForecastSamplingModule],
  controllers: [ForecastController],
  providers: [ForecastService],
})
export class ForecastModule {}
