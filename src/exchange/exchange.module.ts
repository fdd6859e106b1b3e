import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ServingModule } from '../serving/serving.module';
import { ExchangeCampaign } from './entities/exchange-campaign.entity';
import { ExchangeStatsHourly } from './entities/exchange-stats-hourly.entity';
import { ExchangeCampaignsService } from './exchange-campaigns.service';
import { ExchangeIndexService } from './exchange-index.service';
import { ExchangeStatsWriterService } from './exchange-stats-writer.service';
import { ExchangeStatsRepository } from './exchange-stats.repository';
import { ExchangeController } from './exchange.controller';
import { ExchangeService } from './exchange.service';

/** Partner cross-promotion (endpoints 8, 9) on serving's shared state, with its own traffic ledger. */
@Module({
  imports: [TypeOrmModule.forFeature([ExchangeCampaign, ExchangeStatsHourly]), ServingModule],
  controllers: [ExchangeController],
  providers: [ExchangeIndexService, ExchangeStatsWriterService, ExchangeStatsRepository, ExchangeService, ExchangeCampaignsService],
  exports: [ExchangeIndexService, ExchangeStatsWriterService, ExchangeService],
})
export class ExchangeModule {}
