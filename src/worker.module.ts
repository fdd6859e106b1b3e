import { DynamicModule, Module } from '@nestjs/common';
import { ChangeBusModule } from './common/change-bus';
import { ClockModule } from './common/clock';
import { AppConfig, AppConfigModule } from './app-config';
import { DatabaseModule } from './database/database.module';
import { MetricsModule } from './metrics/metrics.module';
import { ProfilesModule } from './profiles/profiles.module';
import { QueueModule } from './queue/queue.module';
import { RedisModule } from './redis/redis.module';
import { VerificationModule } from './verification/verification.module';
import { RewardCallbacksModule } from './rewards/reward-callbacks.module';

/** The providers queue jobs need, without HTTP: `npm run start:worker` (src/worker.ts). Add a feature with a queue here. */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        AppConfigModule.forRoot(config),
        // the queues and the writers count into it; the worker serves no /metrics (docs/OPERATIONS.md)
        MetricsModule,
        ClockModule.forRoot(),
        DatabaseModule.forRoot(config),
        RedisModule,
        QueueModule.forRoot(config),
        ChangeBusModule,
        ProfilesModule,
        VerificationModule,
        RewardCallbacksModule,
      ],
    };
  }
}
