import { Global, Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { MetricsAccessGuard } from './metrics-access.guard';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

/** The figures of this process, fed by the features' writers; every process has them (the worker too). */
@Global()
@Module({ providers: [MetricsService], exports: [MetricsService] })
export class MetricsModule {}

/** GET /metrics, for the API process (docs/OPERATIONS.md, "Metrics"). */
@Module({ imports: [AccountsModule], controllers: [MetricsController], providers: [MetricsAccessGuard] })
export class MetricsEndpointModule {}
