import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AdBlocksModule } from '../ad-blocks/ad-blocks.module';
import { ServingModule } from '../serving/serving.module';
import { StatsModule } from '../stats/stats.module';
import { VerificationModule } from '../verification/verification.module';
import { RewardsModule } from '../rewards/rewards.module';
import { ClickStoreModule } from './click-store.module';
import { ClicksController } from './clicks.controller';
import { ClicksFastLane } from './clicks.fast-lane';
import { ClicksService } from './clicks.service';

@Module({
  imports: [AccountsModule, AdBlocksModule, ServingModule, StatsModule, VerificationModule, ClickStoreModule, RewardsModule],
  controllers: [ClicksController],
  providers: [ClicksService, ClicksFastLane],
  exports: [ClicksService],
})
export class ClicksModule {}
