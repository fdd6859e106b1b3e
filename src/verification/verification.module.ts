import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { ClickStoreModule } from '../clicks/click-store.module';
import { StatsModule } from '../stats/stats.module';
import { VerificationCall } from './entities/verification-call.entity';
import { VerificationCallRepository } from './verification-call.repository';
import { VerificationController } from './verification.controller';
import { VerificationScheduler } from './verification-scheduler.service';
import { VerificationProcessor } from './verification.processor';
import { VerificationService } from './verification.service';

@Module({
  imports: [TypeOrmModule.forFeature([VerificationCall]), ClickStoreModule, CampaignsModule, StatsModule],
  controllers: [VerificationController],
  providers: [VerificationService, VerificationProcessor, VerificationScheduler, VerificationCallRepository],
  exports: [VerificationService, VerificationScheduler],
})
export class VerificationModule {}
