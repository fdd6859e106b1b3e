import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { AppConfig } from '../app-config';
import { bullConnection, bullPrefix } from './bullmq-job-queue';
import { BULL_CONNECTION } from './queue.service';
import { ALL_QUEUES } from './queue-names';
import { QueueService } from './queue.service';

/** Queues for every feature: BullMQ (through @nestjs/bullmq) with REDIS_URL, in-process otherwise. */
@Global()
@Module({})
export class QueueModule {
  static forRoot(config: AppConfig): DynamicModule {
    const connection = config.redisUrl ? bullConnection(config) : null;
    const bull = connection
      ? [
          BullModule.forRoot({ connection, prefix: bullPrefix(config.redisPrefix, config.redisClusterNodes !== null) }),
          BullModule.registerQueue(...ALL_QUEUES.map((name) => ({ name }))),
        ]
      : [];
    return {
      module: QueueModule,
      imports: [DiscoveryModule, ...bull],
      providers: [QueueService, { provide: BULL_CONNECTION, useValue: connection }],
      exports: [QueueService],
    };
  }
}
