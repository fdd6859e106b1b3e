import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { RetentionService } from './retention.service';

/** The event data lifecycle (docs/SCALING.md, step 4): day partitions ahead and EVENT_RETENTION_DAYS. */
@Module({
  imports: [DiscoveryModule],
  providers: [RetentionService],
  exports: [RetentionService],
})
export class RetentionModule {}
