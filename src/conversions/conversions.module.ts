import { Module } from '@nestjs/common';
import { ClickStoreModule } from '../clicks/click-store.module';
import { StatsModule } from '../stats/stats.module';
import { ConversionRepository } from './conversion.repository';
import { ConversionsController } from './conversions.controller';
import { ConversionsService } from './conversions.service';
import { PostbackController } from './postback.controller';
import { AccountsModule } from '../accounts/accounts.module';

@Module({
  imports: [ClickStoreModule, StatsModule, AccountsModule],
  controllers: [ConversionsController, PostbackController],
  providers: [ConversionsService, ConversionRepository],
  exports: [ConversionsService],
})
export class ConversionsModule {}
