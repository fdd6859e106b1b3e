import { AccountsModule } from '../accounts/accounts.module';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdBlocksModule } from '../ad-blocks/ad-blocks.module';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { ClickStoreModule } from '../clicks/click-store.module';
import { StatsHourly } from './entities/stats-hourly.entity';
import { ReportRowsRepository } from './report-rows.repository';
import { StatsWriterService } from './stats-writer.service';
import { StatsController } from './stats.controller';
import { StatsRepository } from './stats.repository';
import { StatsService } from './stats.service';

@Module({
  imports: [TypeOrmModule.forFeature([StatsHourly]), CampaignsModule, AdBlocksModule, ClickStoreModule, AccountsModule],
  controllers: [StatsController],
  providers: [StatsService, StatsWriterService, StatsRepository, ReportRowsRepository],
  exports: [StatsWriterService, StatsService],
})
export class StatsModule {}
