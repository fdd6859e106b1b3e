import { Account } from '../accounts/entities/account.entity';
import { ApiKey } from '../accounts/entities/api-key.entity';
import { AdBlock } from '../ad-blocks/entities/ad-block.entity';
import { Campaign } from '../campaigns/entities/campaign.entity';
import { Click } from '../clicks/entities/click.entity';
import { Conversion } from '../conversions/entities/conversion.entity';
import { ConversionTransaction } from '../conversions/entities/conversion-transaction.entity';
import { VerificationCall } from '../verification/entities/verification-call.entity';
import { StatsHourly } from '../stats/entities/stats-hourly.entity';
import { StatsWrite } from '../stats/entities/stats-write.entity';
import { StatsReportHourly } from '../stats/entities/stats-report-hourly.entity';
import { Profile } from '../profiles/entities/profile.entity';
import { ProfileBatch } from '../profiles/entities/profile-batch.entity';
import { ExchangeCampaign } from '../exchange/entities/exchange-campaign.entity';
import { ExchangeClick } from '../exchange/entities/exchange-click.entity';
import { ExchangeStatsHourly } from '../exchange/entities/exchange-stats-hourly.entity';
import { ExchangeConversion } from '../exchange/entities/exchange-conversion.entity';
import { ForecastSample } from '../forecast/entities/forecast-sample.entity';
import { RewardDayCount, RewardDelivery } from '../rewards/entities/reward-delivery.entity';
import { IdempotencyRecord } from '../idempotency/entities/idempotency-record.entity';

export const ENTITIES = [
  Account,
  ApiKey,
  Campaign,
  AdBlock,
  Click,
  StatsHourly,
  StatsReportHourly,
  StatsWrite,
  Conversion,
  ConversionTransaction,
  VerificationCall,
  ExchangeCampaign,
  ExchangeClick,
  ExchangeStatsHourly,
  ExchangeConversion,
  Profile,
  ProfileBatch,
  ForecastSample,
  RewardDelivery,
  RewardDayCount,
  IdempotencyRecord,
];
