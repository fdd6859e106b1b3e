import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdBlocksModule } from '../ad-blocks/ad-blocks.module';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { StatsHourly } from './entities/stats-hourly.entity';
import { StatsWriterService } from './stats-writer.service';
import { StatsController } from './stats.controller';
import { StatsService } from './stats.service';

@Module({
  imports: [TypeOrmModule.forFeature([StatsHourly]), CampaignsModule, AdBlocksModule],
  controllers: [StatsController],
  providers: [StatsService, StatsWriterService],
  exports: [StatsWriterService],
})
export class StatsModule {}
