import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdBlocksModule } from '../ad-blocks/ad-blocks.module';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { ClickStoreModule } from '../clicks/click-store.module';
import { StatsHourly } from './entities/stats-hourly.entity';
import { StatsWriterService } from './stats-writer.service';
import { StatsController } from './stats.controller';
import { StatsRepository } from './stats.repository';
import { StatsService } from './stats.service';

@Module({
  imports: [TypeOrmModule.forFeature([StatsHourly]), CampaignsModule, AdBlocksModule, ClickStoreModule],
  controllers: [StatsController],
  providers: [StatsService, StatsWriterService, StatsRepository],
  exports: [StatsWriterService, StatsService],
})
export class StatsModule {}
