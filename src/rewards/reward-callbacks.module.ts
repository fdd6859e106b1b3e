import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountStoreModule } from '../accounts/account-store.module';
import { AdBlocksModule } from '../ad-blocks/ad-blocks.module';
import { RewardDayCount, RewardDelivery } from './entities/reward-delivery.entity';
import { RewardCallbackProcessor } from './reward-callback.processor';
import { RewardCallbacksService } from './reward-callbacks.service';
import { RewardRepository } from './reward.repository';

/** Reward callbacks and their delivery log: what the API and the workers (src/worker.module.ts) share. */
@Module({
  imports: [TypeOrmModule.forFeature([RewardDelivery, RewardDayCount]), AdBlocksModule, AccountStoreModule],
  providers: [RewardRepository, RewardCallbacksService, RewardCallbackProcessor],
  exports: [RewardRepository, RewardCallbacksService],
})
export class RewardCallbacksModule {}
