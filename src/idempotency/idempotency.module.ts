import { Module } from '@nestjs/common';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';

/** `Idempotency-Key` records (docs/CONTRACT.md §20); the HTTP edge uses the service (src/common/edge/idempotency.ts). */
@Module({
  providers: [IdempotencyRepository, IdempotencyService],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
