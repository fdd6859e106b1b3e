import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AdBlocksModule } from '../ad-blocks/ad-blocks.module';
import { ServingModule } from '../serving/serving.module';
import { StatsModule } from '../stats/stats.module';
import { VerificationModule } from '../verification/verification.module';
import { ClickStoreModule } from './click-store.module';
import { EventsController } from './events.controller';
import { EventsFastLane } from './events.fast-lane';
import { EventsService } from './events.service';

@Module({
  imports: [AccountsModule, AdBlocksModule, ServingModule, StatsModule, VerificationModule, ClickStoreModule],
  controllers: [EventsController],
  providers: [EventsService, EventsFastLane],
  exports: [EventsService],
})
export class EventsModule {}
