import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { QUEUE_CONFIG, QueueConfig } from './queue.config';
import { REDIS_CONFIG, RedisConfig } from '../redis/redis.config';
import { DiscoveryService, ModuleRef, Reflector } from '@nestjs/core';
import { getQueueToken } from '@nestjs/bullmq';
import type { ConnectionOptions, Queue } from 'bullmq';
import { MetricsService } from '../metrics/metrics.service';
import { closeRedis, RedisClient } from '../redis/redis.module';
import { BullMqJobQueue } from './bullmq-job-queue';
import { MemoryJobQueue } from './memory-job-queue';
import { ALL_QUEUES } from './queue-names';
import { JOB_PROCESSOR, JobProcessor, JobQueue, ProcessorOptions } from './queue.types';

type AnyQueue = MemoryJobQueue | BullMqJobQueue;

/** The BullMQ connection of this process (see bullConnection); null on the embedded profile. */
export const BULL_CONNECTION = Symbol('BULL_CONNECTION');

/**
 * The queues of this process: BullMQ queues on Redis when REDIS_URL is set, in-process queues otherwise.
 * When QUEUE_WORKERS is on (the default, and always in `npm run start:worker`), every provider marked with
 * @JobProcessorFor gets the jobs of its queue.
 */
@Injectable()
export class QueueService implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(QueueService.name);
  private readonly queues = new Map<string, AnyQueue>();
  private readonly processed = new Set<string>();

  constructor(
    @Inject(QUEUE_CONFIG) private readonly queueConfig: QueueConfig,
    @Inject(REDIS_CONFIG) private readonly redisConfig: RedisConfig,
    private readonly moduleRef: ModuleRef,
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
    private readonly metrics: MetricsService,
    @Inject(BULL_CONNECTION) private readonly bullConnection: ConnectionOptions | null,
  ) {
    metrics.labelledGauge(
      'adnet_queue_jobs',
      'Jobs per queue and state (waiting, delayed, active; failed and completed as kept). With Redis, the shared queues: every process reports the same.',
      ['queue', 'state'],
      async () => {
        const samples: { labels: { queue: string; state: string }; value: number }[] = [];
        for (const name of ALL_QUEUES) {
          const counts = await this.resolve(name).counts();
          for (const [state, value] of Object.entries(counts)) samples.push({ labels: { queue: name, state }, value });
        }
        return samples;
      },
    );
  }

  get usesRedis(): boolean {
    return Boolean(this.redisConfig.redisUrl);
  }

  queue<T>(name: string): JobQueue<T> {
    return this.resolve(name) as unknown as JobQueue<T>;
  }

  /** The BullMQ queues (for bull-board); empty on the embedded profile. */
  bullQueues(): Queue[] {
    if (!this.usesRedis) return [];
    return ALL_QUEUES.map((name) => (this.resolve(name) as BullMqJobQueue).queue);
  }

  /** Queues whose processors run in this process. */
  get workingQueues(): string[] {
    return [...this.processed];
  }

  onApplicationBootstrap(): void {
    if (!this.queueConfig.queueWorkers) {
      this.logger.log('QUEUE_WORKERS=false: this process adds jobs but does not process them');
      return;
    }
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as JobProcessor | undefined;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      const options = this.reflector.get<ProcessorOptions | undefined>(JOB_PROCESSOR, instance.constructor);
      if (!options || this.processed.has(options.queue)) continue;
      this.processed.add(options.queue);
      const queue = this.resolve(options.queue);
      if (queue instanceof BullMqJobQueue) queue.work(instance, this.bullConnection!, options.concurrency);
      else queue.work(instance, options.concurrency);
    }
  }

  /** Workers stop (their running jobs finish) before the database and Redis connections close (onApplicationShutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.queues.values()].map((queue) => queue.stopWorking()));
  }

  /**
   * The queues close only after the HTTP server has closed (Nest closes it between the two hooks): a request in
   * flight at SIGTERM (a profile batch being accepted) can still add its job.
   */
  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.queues.values()].map((queue) => queue.close()));
    // a cluster client the queues shared (BullMQ does not close it); options need no closing
    if (this.bullConnection && 'isCluster' in this.bullConnection) await closeRedis(this.bullConnection as RedisClient);
  }

  private readonly countFailedTry = (queue: string, final: boolean) => this.metrics.countJobFailure(queue, final);

  private resolve(name: string): AnyQueue {
    let queue = this.queues.get(name);
    if (!queue) {
      if (this.usesRedis) {
        if (!(ALL_QUEUES as string[]).includes(name)) throw new Error(`queue ${name} is not listed in QUEUE_NAMES`);
        queue = new BullMqJobQueue(this.moduleRef.get<Queue>(getQueueToken(name), { strict: false }), this.countFailedTry);
      } else {
        queue = new MemoryJobQueue(name, this.countFailedTry);
      }
      this.queues.set(name, queue);
    }
    return queue;
  }
}
