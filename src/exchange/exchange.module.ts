import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ServingModule } from '../serving/serving.module';
import { ExchangeCampaign } from './entities/exchange-campaign.entity';
import { ExchangeStatsHourly } from './entities/exchange-stats-hourly.entity';
import { ExchangeCampaignsService } from './exchange-campaigns.service';
import { ExchangeConversionRepository } from './exchange-conversion.repository';
import { ExchangeConversionsService } from './exchange-conversions.service';
import { ExchangeIndexService } from './exchange-index.service';
import { ExchangeCampaignRepository } from './exchange-campaign.repository';
import { ExchangeStatsWriterService } from './exchange-stats-writer.service';
import { ExchangeStatsRepository } from './exchange-stats.repository';
import { ExchangeController } from './exchange.controller';
import { ExchangeService } from './exchange.service';

/** Partner cross-promotion (endpoints 8, 9, exchange conversions) on serving's shared state, with its own traffic ledger. */
@Module({
  imports: [TypeOrmModule.forFeature([ExchangeCampaign, ExchangeStatsHourly]), ServingModule],
  controllers: [ExchangeController],
  providers: [
    ExchangeCampaignRepository,
    ExchangeIndexService,
    ExchangeStatsWriterService,
    ExchangeStatsRepository,
    ExchangeService,
    ExchangeCampaignsService,
    ExchangeConversionRepository,
    ExchangeConversionsService,
  ],
  exports: [ExchangeIndexService, ExchangeStatsWriterService, ExchangeConversionsService, ExchangeService],
})
export class ExchangeModule {}
