import { Module } from '@nestjs/common';
import { AdBlocksModule } from '../ad-blocks/ad-blocks.module';
import { ServingModule } from '../serving/serving.module';
import { StatsModule } from '../stats/stats.module';
import { CompletionsService } from './completions.service';
import { RewardCallbacksModule } from './reward-callbacks.module';
import { RewardsController } from './rewards.controller';

/** Rewarded ads (docs/REWARDED_ADS.md): completions of served ads and the reward callbacks they earn. */
@Module({
  imports: [AdBlocksModule, ServingModule, StatsModule, RewardCallbacksModule],
  controllers: [RewardsController],
  providers: [CompletionsService],
  exports: [CompletionsService],
})
export class RewardsModule {}
