import { DynamicModule, Module } from '@nestjs/common';
import type { DestinationStream } from 'pino';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AccountsModule } from './accounts/accounts.module';
import { AdBlocksModule } from './ad-blocks/ad-blocks.module';
import { CampaignsModule } from './campaigns/campaigns.module';
import { CompatModule } from './compat/compat.module';
import { AllExceptionsFilter } from './common/all-exceptions.filter';
import { ChangeBusModule } from './common/change-bus';
import { Clock, ClockModule } from './common/clock';
import { RequestValidationPipe } from './common/validation.pipe';
import { AppConfig, AppConfigModule } from './app-config';
import { ConversionsModule } from './conversions/conversions.module';
import { DatabaseModule } from './database/database.module';
import { ClicksModule } from './clicks/clicks.module';
import { ExchangeModule } from './exchange/exchange.module';
import { ForecastModule } from './forecast/forecast.module';
import { HealthModule } from './health/health.module';
import { MetricsEndpointModule, MetricsModule } from './metrics/metrics.module';
import { ProfilesModule } from './profiles/profiles.module';
import { QueueModule } from './queue/queue.module';
import { RedisModule } from './redis/redis.module';
import { ReportsModule } from './reports/reports.module';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { RetentionModule } from './retention/retention.module';
import { ServingModule } from './serving/serving.module';
import { StatsModule } from './stats/stats.module';
import { TrustModule } from './trust/trust.module';
import { VerificationModule } from './verification/verification.module';
import { RewardsModule } from './rewards/rewards.module';

export interface AppModuleOptions {
  /** Tests only: start from an empty schema, then run the migrations. */
  dropSchema?: boolean;
  /** Tests only: where the JSON log lines go (stdout otherwise). */
  logDestination?: DestinationStream;
  /** Tests only: a clock they can move. */
  clock?: Clock;
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, options: AppModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forRoot(config),
        MetricsModule,
        ClockModule.forRoot(options.clock),
        DatabaseModule.forRoot(config, { dropSchema: options.dropSchema }),
        RedisModule,
        QueueModule.forRoot(config),
        ChangeBusModule,
        TrustModule,
        AccountsModule,
        CampaignsModule,
        AdBlocksModule,
        ServingModule,
        ForecastModule,
        ClicksModule,
        ReportsModule,
        IdempotencyModule,
        ConversionsModule,
        ProfilesModule,
        ExchangeModule,
        VerificationModule,
        RewardsModule,
        StatsModule,
        CompatModule,
        HealthModule,
        MetricsEndpointModule,
        RetentionModule,
      ],
      providers: [
        { provide: APP_PIPE, useClass: RequestValidationPipe },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
      ],
    };
  }
}
