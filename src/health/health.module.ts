import { Module } from '@nestjs/common';
import { MetricsModule } from '../metrics/metrics.module';
import { DependencyMetrics } from './dependency-metrics';
import { HealthController } from './health.controller';
import { HealthRepository } from './health.repository';

@Module({ imports: [MetricsModule], controllers: [HealthController], providers: [HealthRepository, DependencyMetrics] })
export class HealthModule {}
