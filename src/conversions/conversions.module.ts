import { Module } from '@nestjs/common';
import { ClickStoreModule } from '../clicks/click-store.module';
import { StatsModule } from '../stats/stats.module';
import { ConversionRepository } from './conversion.repository';
import { ConversionsController } from './conversions.controller';
import { ConversionsService } from './conversions.service';

@Module({
  imports: [ClickStoreModule, StatsModule],
  controllers: [ConversionsController],
  providers: [ConversionsService, ConversionRepository],
  exports: [ConversionsService],
})
export class ConversionsModule {}
