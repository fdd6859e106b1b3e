import { Module } from '@nestjs/common';
import { VerificationController } from './verification.controller';
import { VerificationScheduler } from './verification-scheduler.service';
import { VerificationProcessor } from './verification.processor';
import { VerificationService } from './verification.service';

@Module({
  controllers: [VerificationController],
  providers: [VerificationService, VerificationProcessor, VerificationScheduler],
  exports: [VerificationService, VerificationScheduler],
})
export class VerificationModule {}
