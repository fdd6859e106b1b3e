import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ForecastSample } from './entities/forecast-sample.entity';
import { ForecastSampleRepository } from './forecast-sample.repository';
import { ForecastSampler } from './forecast-sampler';

/** The sample of ad requests: serving offers to it, the forecast reads it. */
@Module({
  imports: [TypeOrmModule.forFeature([ForecastSample])],
  providers: [ForecastSampleRepository, ForecastSampler],
  exports: [ForecastSampleRepository, ForecastSampler],
})
export class ForecastSamplingModule {}
